package org.rpcrdma4j.efa.endpoint;

import java.util.ArrayDeque;
import java.util.Iterator;
import org.rpcrdma4j.efa.EfaErrorCode;
import org.rpcrdma4j.efa.device.Device;
import org.rpcrdma4j.efa.wire.ExtraFeature;

/**
 * The direct read and direct write subprotocols (EFA RDM protocol v4 §4.1 "Direct read", §4.6
 * "Direct write"): one device RDMA operation against the peer's registered memory, no REQ packet.
 * Allowed only when both sides announced the feature in their handshakes (RDMA read is extra
 * feature 0, RDMA write extra feature 5); otherwise the operation completes with
 * {@link EfaErrorCode#PEER_LACKS_FEATURE} (emulated read and write are not offered).
 *
 * <p>An operation waits on the before-handshake list until the peer's handshake arrives, and on
 * the same list while the device's send queue is full.
 */
final class DirectRma {

    private final ArrayDeque<TxEntry> waiting = new ArrayDeque<>();
    private final Device device;
    private final Handshake handshake;
    private final TxSide tx;

    DirectRma(Device device, Handshake handshake, TxSide tx) {
        this.device = device;
        this.handshake = handshake;
        this.tx = tx;
    }

    void start(TxEntry entry) {
        final ExtraFeature feature = feature(entry);
        if (!handshake.announces(feature)) {
            tx.fail(entry, EfaErrorCode.DEVICE_LACKS_FEATURE);
        } else if (!entry.peer.handshakeReceived || !waiting.isEmpty() || !post(entry)) {
            // May be waiting for a peer that never answers; TxSide.forget ends it with the peer.
            handshake.trigger(entry.peer);
            waiting.add(entry);
        }
    }

    /** @return whether no operation waits to be posted */
    boolean idle() {
        return waiting.isEmpty();
    }

    /** @return how many waiting operations were posted or failed */
    int progress() {
        int done = 0;
        final Iterator<TxEntry> it = waiting.iterator();
        while (it.hasNext()) {
            final TxEntry entry = it.next();
            if (entry.completed) {
                // Ended with its peer (TxSide.forget).
                it.remove();
                continue;
            }
            if (!entry.peer.handshakeReceived) {
                continue;
            }
            if (!entry.peer.has(feature(entry))) {
                tx.fail(entry, EfaErrorCode.PEER_LACKS_FEATURE);
            } else if (!post(entry)) {
                break;
            }
            it.remove();
            done++;
        }
        return done;
    }

    private boolean post(TxEntry entry) {
        if (!entry.peer.has(feature(entry))) {
            return false;
        }
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

    private static ExtraFeature feature(TxEntry entry) {
        return entry.protocol == Protocol.DIRECT_READ ? ExtraFeature.RDMA_READ : ExtraFeature.RDMA_WRITE;
    }
}
