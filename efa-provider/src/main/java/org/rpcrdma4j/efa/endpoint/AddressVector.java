package org.rpcrdma4j.efa.endpoint;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.rpcrdma4j.efa.EndpointAddress;
import org.rpcrdma4j.efa.EndpointConfig;
import org.rpcrdma4j.efa.device.AddressHandle;
import org.rpcrdma4j.efa.device.Device;
import org.rpcrdma4j.efa.device.Gid;

/**
 * The address vector: raw addresses to peers (libfabric-programmers-guide.md, "Address Vectors").
 * A peer's handle ({@code fi_addr}) is its index. The device keeps one address handle per GID, so
 * queue pairs on one GID share it. Peers are found by handle for sends and by (GID, QPN) for
 * receives, which is what the device reports of a packet's source (§2.2).
 */
final class AddressVector {

    /** Looked up for every received packet, so its methods are written out (see {@link Gid#hashCode}). */
    private record DeviceKey(Gid gid, int qpn) {
        @Override
        public boolean equals(Object other) {
            return other instanceof DeviceKey key && key.qpn == qpn && key.gid.equals(gid);
        }

        @Override
        public int hashCode() {
            return gid.hashCode() * 31 + qpn;
        }
    }

    private final Device device;
    private final EndpointConfig config;
    private final Random random;
    private final List<Peer> peers = new ArrayList<>();
    private final Map<DeviceKey, Peer> byDevice = new HashMap<>();
    private final Map<Gid, AddressHandle> handles = new HashMap<>();
    /** Connids of queue pairs a restart replaced, per GID and QPN: their late packets are stale. */
    private final Map<DeviceKey, Set<Integer>> retired = new HashMap<>();

    AddressVector(Device device, EndpointConfig config, Random random) {
        this.device = device;
        this.config = config;
        this.random = random;
    }

    /**
     * Inserts an address, or returns the peer already inserted under it.
     *
     * @throws IllegalArgumentException if the GID and QPN are known with another connid: the
     *     caller decides whether that is a stale packet or a misuse
     */
    Peer insert(EndpointAddress address) {
        final DeviceKey key = new DeviceKey(address.gid(), address.qpn());
        final Peer known = byDevice.get(key);
        if (known != null) {
            if (known.address.connid() != address.connid()) {
                throw new IllegalArgumentException(address + " is inserted with connid 0x"
                        + Integer.toHexString(known.address.connid()));
            }
            return known;
        }
        final AddressHandle ah = handles.computeIfAbsent(address.gid(), device::createAddressHandle);
        final Peer peer = new Peer(peers.size(), address, ah,
                new ReorderWindow(config.reorderWindow(), config.initialMsgId()),
                new Backoff(config.rnrBackoffMinNs(), config.rnrBackoffMaxInitialNs(), config.rnrBackoffCapNs(), random),
                config.initialMsgId());
        peers.add(peer);
        byDevice.put(key, peer);
        return peer;
    }

    /**
     * A queue pair with a new connid now holds the GID and QPN of a known peer: the process behind
     * it restarted (efa-rdm-protocol-v4.md §4.4, "QP collision"). It becomes a new peer with a new
     * handle and a fresh handshake, ordering and backoff state; the old peer keeps its handle, but
     * packets are no longer attributed to it.
     *
     * @return the new peer, or null if {@code address} carries a connid that was itself replaced:
     *     a late packet of a dead queue pair
     */
    Peer replace(EndpointAddress address) {
        final DeviceKey key = new DeviceKey(address.gid(), address.qpn());
        final Set<Integer> gone = retired.computeIfAbsent(key, k -> new HashSet<>());
        if (gone.contains(address.connid())) {
            return null;
        }
        gone.add(byDevice.remove(key).address.connid());
        return insert(address);
    }

    /** @return the peer with this handle, or null */
    Peer get(long fiAddr) {
        return fiAddr >= 0 && fiAddr < peers.size() ? peers.get((int) fiAddr) : null;
    }

    /** @return the peer at this GID and QPN, or null */
    Peer find(Gid gid, int qpn) {
        return byDevice.get(new DeviceKey(gid, qpn));
    }
}
