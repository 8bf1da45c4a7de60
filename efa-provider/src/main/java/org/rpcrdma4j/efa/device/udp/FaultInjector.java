package org.rpcrdma4j.efa.device.udp;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The seam where faults enter: a {@link DatagramSink} in front of the socket that loses, duplicates
 * and reorders datagrams as {@link UdpFaults} say, drawing from one seeded random source, the way
 * Aeron's debug channel endpoints apply a loss generator. Runs on the I/O thread only, except
 * {@link #setLinkFaults}, which may be called from any thread.
 *
 * <p>A held-back datagram is copied (the caller keeps its buffer); it leaves after a drawn number of
 * later datagrams to the same destination, or at the next {@link #onTick()}.
 */
final class FaultInjector implements DatagramSink {

    private final DatagramSink socket;
    private final UdpFaults defaults;
    private final SplittableRandom random;
    private final Map<InetSocketAddress, UdpFaults> links = new ConcurrentHashMap<>();
    private final List<Held> held = new ArrayList<>();
    private final Counters counters;

    /**
     * @param socket where datagrams go
     * @param defaults the faults on every destination without its own
     * @param seed the seed of the random source
     * @param counters where to count what was done
     */
    FaultInjector(DatagramSink socket, UdpFaults defaults, long seed, Counters counters) {
        this.socket = socket;
        this.defaults = defaults;
        this.random = new SplittableRandom(seed);
        this.counters = counters;
    }

    /**
     * @param to a destination
     * @param faults its faults from now on, or {@code null} for the defaults again
     */
    void setLinkFaults(InetSocketAddress to, UdpFaults faults) {
        if (faults == null) {
            links.remove(to);
        } else {
            links.put(to, faults);
        }
    }

    @Override
    public void send(ByteBuffer datagram, InetSocketAddress to) {
        final UdpFaults faults = links.getOrDefault(to, defaults);
        if (faults.none()) {
            socket.send(datagram, to);
            releaseAfter(to);
            return;
        }
        if (faults.lossProbability() > 0 && random.nextDouble() < faults.lossProbability()) {
            counters.add(UdpCounter.FAULT_DROPPED);
            return;
        }
        final int copies = faults.duplicateProbability() > 0 && random.nextDouble() < faults.duplicateProbability()
                ? 2 : 1;
        if (copies == 2) {
            counters.add(UdpCounter.FAULT_DUPLICATED);
        }
        for (int i = 0; i < copies; i++) {
            if (faults.reorderProbability() > 0 && random.nextDouble() < faults.reorderProbability()) {
                final ByteBuffer copy = ByteBuffer.allocate(datagram.remaining());
                copy.put(datagram.duplicate()).flip();
                held.add(new Held(copy, to, 1 + random.nextInt(faults.reorderWindow())));
                counters.add(UdpCounter.FAULT_REORDERED);
            } else {
                socket.send(datagram, to);
                releaseAfter(to);
            }
        }
    }

    /** Sends every datagram still held back. */
    void onTick() {
        if (held.isEmpty()) {
            return;
        }
        final List<Held> due = new ArrayList<>(held);
        held.clear();
        for (Held h : due) {
            socket.send(h.datagram, h.to);
        }
    }

    /** @return whether datagrams are held back */
    boolean holding() {
        return !held.isEmpty();
    }

    private void releaseAfter(InetSocketAddress to) {
        if (held.isEmpty()) {
            return;
        }
        for (int i = 0; i < held.size(); i++) {
            final Held h = held.get(i);
            if (h.to.equals(to) && --h.remaining == 0) {
                held.remove(i--);
                socket.send(h.datagram, h.to);
            }
        }
    }

    /** A datagram held back, and how many later ones still pass it. */
    private static final class Held {
        final ByteBuffer datagram;
        final InetSocketAddress to;
        int remaining;

        Held(ByteBuffer datagram, InetSocketAddress to, int remaining) {
            this.datagram = datagram;
            this.to = to;
            this.remaining = remaining;
        }
    }
}
