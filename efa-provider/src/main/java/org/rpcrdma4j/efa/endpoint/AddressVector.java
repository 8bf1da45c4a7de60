package org.rpcrdma4j.efa.endpoint;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import org.rpcrdma4j.efa.EndpointAddress;
import org.rpcrdma4j.efa.EndpointConfig;
import org.rpcrdma4j.efa.device.AddressHandle;
import org.rpcrdma4j.efa.device.Device;
import org.rpcrdma4j.efa.device.Gid;

/**
 * The address vector: raw addresses to peers (the libfabric programmer's guide, "Address Vectors").
 * A peer's handle ({@code fi_addr}) is its index; the index of a removed peer is given to the next
 * one, as libfabric reuses {@code fi_addr}s. The device keeps one address handle per GID, shared
 * by the queue pairs on it and destroyed with the last peer that uses it. Peers are found by
 * handle for sends and by (GID, QPN) for receives, which is what the device reports of a packet's
 * source (§2.2).
 *
 * <p>QP collision (EFA RDM protocol v4 §4.4): one (GID, QPN) may have been held by several
 * queue pairs, each with its own connid. The latest one inserted is current, and packets from the
 * (GID, QPN) belong to it; inserting a new connid replaces the current peer, which is handed to the
 * restart handler, and its address is remembered as retired so that late packets of the dead queue
 * pair are recognised as stale. libfabric keeps the same two tables ({@code cur_reverse_av} and
 * {@code prv_reverse_av} in {@code efa_av.c}).
 */
final class AddressVector {

    /** How many replaced addresses are remembered; the oldest are forgotten first. */
    static final int RETIRED_MEMORY = 1024;

    /** Looked up for every received packet, so its methods are written out (see {@link Gid#hashCode}). */
    private record DeviceKey(Gid gid, int qpn) {
        DeviceKey(EndpointAddress address) {
            this(address.gid(), address.qpn());
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof DeviceKey key && key.qpn == qpn && key.gid.equals(gid);
        }

        @Override
        public int hashCode() {
            return gid.hashCode() * 31 + qpn;
        }
    }

    private record SharedHandle(AddressHandle ah, int users) {
    }

    private final Device device;
    private final EndpointConfig config;
    private final Random random;
    private final Consumer<Peer> onRestart;
    private final List<Peer> peers = new ArrayList<>();
    private final ArrayDeque<Integer> freeHandles = new ArrayDeque<>();
    private final Map<DeviceKey, Peer> current = new HashMap<>();
    private final Map<EndpointAddress, Peer> byAddress = new HashMap<>();
    private final Map<Gid, SharedHandle> handles = new HashMap<>();
    private final LinkedHashSet<EndpointAddress> retired = new LinkedHashSet<>();
    /** The sizes of {@link #byAddress} and {@link #handles}, kept apart for the gauges on other threads. */
    private volatile int peerCount;
    private volatile int addressHandles;

    /**
     * @param onRestart told of a peer whose (GID, QPN) a new connid took; it is no longer current
     */
    AddressVector(Device device, EndpointConfig config, Random random, Consumer<Peer> onRestart) {
        this.device = device;
        this.config = config;
        this.random = random;
        this.onRestart = onRestart;
    }

    /**
     * Inserts an address, or returns the peer already inserted under it. A new connid on a known
     * GID and QPN replaces the current peer there. An address known to have been replaced gives a
     * peer that is {@link Peer.State#RESTARTED} from the start: the queue pair behind it is gone.
     */
    Peer insert(EndpointAddress address) {
        final Peer known = byAddress.get(address);
        if (known != null) {
            return known;
        }
        final Peer peer = create(address);
        if (retired.contains(address)) {
            peer.state = Peer.State.RESTARTED;
            return peer;
        }
        final Peer replaced = current.put(new DeviceKey(address), peer);
        if (replaced != null) {
            retire(replaced.address);
            onRestart.accept(replaced);
        }
        return peer;
    }

    /** @return whether a newer connid replaced this address */
    boolean isRetired(EndpointAddress address) {
        return retired.contains(address);
    }

    /** @return the peer with this handle, or null */
    Peer get(long fiAddr) {
        return fiAddr >= 0 && fiAddr < peers.size() ? peers.get((int) fiAddr) : null;
    }

    /** @return the current peer at this GID and QPN, or null */
    Peer find(Gid gid, int qpn) {
        return current.get(new DeviceKey(gid, qpn));
    }

    /** @return the peer inserted under exactly this address, current or replaced, or null */
    Peer findExact(EndpointAddress address) {
        return byAddress.get(address);
    }

    /**
     * Forgets a peer: its handle is free, and so is its address handle if no other peer uses it.
     * The caller has ended its operations first. The peer is forgotten even if the device fails to
     * destroy the address handle; that failure is thrown afterwards.
     */
    void remove(Peer peer) {
        if (get(peer.fiAddr) != peer) {
            return;
        }
        peers.set((int) peer.fiAddr, null);
        freeHandles.add((int) peer.fiAddr);
        byAddress.remove(peer.address);
        current.remove(new DeviceKey(peer.address), peer);
        final SharedHandle shared = handles.get(peer.address.gid());
        final boolean lastUser = shared.users() == 1;
        if (lastUser) {
            handles.remove(peer.address.gid());
        } else {
            handles.put(peer.address.gid(), new SharedHandle(shared.ah(), shared.users() - 1));
        }
        countPeers();
        peer.state = Peer.State.REMOVED;
        if (lastUser) {
            device.destroyAddressHandle(shared.ah());
        }
    }

    /** @return the peers, in handle order */
    List<Peer> peers() {
        final List<Peer> live = new ArrayList<>(byAddress.size());
        for (Peer peer : peers) {
            if (peer != null) {
                live.add(peer);
            }
        }
        return live;
    }

    /** @return the peers inserted and not removed; any thread */
    int size() {
        return peerCount;
    }

    /** @return the address handles held; any thread */
    int addressHandleCount() {
        return addressHandles;
    }

    private void countPeers() {
        peerCount = byAddress.size();
        addressHandles = handles.size();
    }

    private Peer create(EndpointAddress address) {
        final SharedHandle shared = handles.get(address.gid());
        final AddressHandle ah = shared != null ? shared.ah() : device.createAddressHandle(address.gid());
        handles.put(address.gid(), new SharedHandle(ah, shared != null ? shared.users() + 1 : 1));
        final Integer free = freeHandles.poll();
        final int fiAddr = free != null ? free : peers.size();
        final Peer peer = new Peer(fiAddr, address, ah, new ReorderWindow(config.reorderWindow(), config.initialMsgId()),
                new Backoff(config.rnrBackoffMinNs(), config.rnrBackoffMaxInitialNs(), config.rnrBackoffCapNs(), random),
                config.initialMsgId());
        if (free != null) {
            peers.set(fiAddr, peer);
        } else {
            peers.add(peer);
        }
        byAddress.put(address, peer);
        countPeers();
        return peer;
    }

    private void retire(EndpointAddress address) {
        retired.add(address);
        if (retired.size() > RETIRED_MEMORY) {
            final Iterator<EndpointAddress> oldest = retired.iterator();
            oldest.next();
            oldest.remove();
        }
    }
}
