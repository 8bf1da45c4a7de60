package org.rpcrdma4j.testbed.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.rpcrdma4j.efa.CompletionEntry;
import org.rpcrdma4j.efa.EfaEndpoint;
import org.rpcrdma4j.efa.EndpointAddress;
import org.rpcrdma4j.efa.EndpointConfig;
import org.rpcrdma4j.efa.device.Device;
import org.rpcrdma4j.efa.device.DeviceProvider;
import org.rpcrdma4j.fabric.BackoffIdleStrategy;
import org.rpcrdma4j.fabric.SocketAddressText;
import org.rpcrdma4j.fabric.efa.EfaFabric;
import org.rpcrdma4j.fabric.efa.IpPeerText;

/**
 * An EFA endpoint on a device of its own that opens on an address ({@link DeviceProvider}: UDP, verbs), driven by
 * the thread that calls it (the endpoint is not thread-safe): each turn progresses the endpoint and hands its
 * completions over. A thread that found nothing to do for {@value #SPIN_NS} ns sleeps until the device completes
 * something, as the fabrics' progress loops do, so that two processes on a small machine do not take each other's
 * cores by polling; where the device cannot wake it, it backs off as those loops do
 * ({@link BackoffIdleStrategy#forProgress()}). Addresses are written as {@code serve --fabric udp} and
 * {@code --fabric efa-verbs} print them, {@code ADDRESS:PORT/CONNID}.
 */
final class EndpointDriver implements AutoCloseable {

    /** How long a thread with nothing to do polls before it sleeps: the fabrics' value. */
    private static final long SPIN_NS = 50_000;
    /** The longest sleep: the device's notification ends it sooner, and so does anyone who unparks the thread. */
    private static final long PARK_NS = 1_000_000;

    private final EfaEndpoint endpoint;
    private final Runnable wake;
    private volatile Thread driver;
    private final BackoffIdleStrategy backoff = BackoffIdleStrategy.forProgress();
    private long busyAt = System.nanoTime();

    private EndpointDriver(EfaEndpoint endpoint) {
        this.endpoint = endpoint;
        this.wake = () -> LockSupport.unpark(driver);
    }

    /**
     * @param provider the kind of device
     * @param listen   {@code ADDRESS[:PORT]} to open it on, port 0 for any
     * @return an endpoint on a new device open there
     * @throws IOException if the device cannot open there
     */
    static EndpointDriver open(DeviceProvider provider, String listen) throws IOException {
        InetSocketAddress bind = SocketAddressText.parse(listen, 0);
        Device device = provider.open(bind);
        try {
            return new EndpointDriver(new EfaEndpoint(device, EndpointConfig.DEFAULT));
        } catch (RuntimeException e) {
            device.close();
            throw e;
        }
    }

    /** @return the endpoint, for the driving thread only */
    EfaEndpoint endpoint() {
        return endpoint;
    }

    /** @return this endpoint's address as text, for the peer */
    String address() {
        return IpPeerText.format(EfaFabric.addressOf(endpoint.address()));
    }

    /**
     * @param text an address as {@link #address()} writes it
     * @return the endpoint address it names
     * @throws IllegalArgumentException if it names none
     */
    static EndpointAddress parse(String text) {
        return EfaFabric.endpointAddressOf(IpPeerText.parse(text, 0));
    }

    /**
     * Lets another thread end this one's sleep, having handed it work.
     */
    void wakeUp() {
        wake.run();
    }

    /**
     * One turn: progress, then hand every completion to {@code sink}; after a quiet spell, sleep until the device
     * completes something.
     *
     * @param sink gets the completions
     */
    void turn(Consumer<CompletionEntry> sink) {
        driver = Thread.currentThread();
        long now = System.nanoTime();
        int work = endpoint.progress(now) + endpoint.poll(sink, Integer.MAX_VALUE);
        if (work > 0) {
            busyAt = now;
            backoff.idle(work);
        } else if (now - busyAt > SPIN_NS && endpoint.armWakeup(wake)) {
            LockSupport.parkNanos(PARK_NS);
        } else {
            backoff.idle(0);
        }
    }

    /**
     * Turns until {@code done} holds.
     *
     * @param done  what ends the wait
     * @param sink  gets the completions
     * @param limit how long it may take
     * @param what  what is waited for, for the error
     * @throws IllegalStateException if {@code limit} passes first
     */
    void turnUntil(BooleanSupplier done, Consumer<CompletionEntry> sink, Duration limit, String what) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("no " + what + " within " + limit.toSeconds() + " s");
            }
            turn(sink);
        }
    }

    @Override
    public void close() {
        endpoint.close();
    }
}
