package org.rpcrdma4j.efa.endpoint;

import java.util.ArrayDeque;
import org.rpcrdma4j.efa.device.Device;

/**
 * The direct read and direct write subprotocols (EFA RDM protocol v4 §4.1 "Direct read", §4.6
 * "Direct write"): one device RDMA operation against the peer's registered memory, no REQ packet.
 * {@link RmaStart} chooses them when both sides announced the feature in their handshakes (RDMA read
 * is extra feature 0, RDMA write extra feature 5).
 *
 * <p>An operation the device's send queue refuses waits here, in order, for the next progress.
 */
final class DirectRma {

    private final ArrayDeque<TxEntry> waiting = new ArrayDeque<>();
    private final Device device;

    DirectRma(Device device) {
        this.device = device;
    }

    void start(TxEntry entry) {
        if (!waiting.isEmpty() || !post(entry)) {
            waiting.add(entry);
        }
    }

    /** @return whether no operation waits to be posted */
    boolean idle() {
        return waiting.isEmpty();
    }

    /** @return how many waiting operations were posted */
    int progress() {
        int done = 0;
        while (!waiting.isEmpty()) {
            final TxEntry entry = waiting.peek();
            // One that ended with its peer (TxSide.forget) is dropped.
            if (!entry.completed && !post(entry)) {
                break;
            }
            waiting.poll();
            done++;
        }
        return done;
    }

    private boolean post(TxEntry entry) {
        final Peer peer = entry.peer;
        final long wrId = entry.id;
        entry.rmaPosted = entry.protocol == Protocol.DIRECT_READ
                ? device.postRead(peer.ah, peer.address.qpn(), peer.address.connid(), entry.local, entry.localOffset,
                        entry.remote, wrId)
                : device.postWrite(peer.ah, peer.address.qpn(), peer.address.connid(), entry.local, entry.localOffset,
                        entry.remote, wrId);
        return entry.rmaPosted;
    }

    /** Forgets every operation waiting: the endpoint is closing. */
    void clear() {
        waiting.clear();
    }
}
