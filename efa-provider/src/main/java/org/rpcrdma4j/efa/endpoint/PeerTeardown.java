package org.rpcrdma4j.efa.endpoint;

import java.util.ArrayDeque;
import org.rpcrdma4j.efa.EndpointCounter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends everything in progress with one peer when it stops being active: declared unreachable,
 * replaced by a restart (EFA RDM protocol v4 §4.4), or removed. Its operations complete with
 * its {@link Peer#failure()}, delivery-complete ones still waiting for their RECEIPT included; its
 * queued packets go back to the pool, what was held for it (RECEIPTs owed it too) is dropped;
 * operations that still have work on the device complete when the device reports it.
 *
 * <p>The progress path asks for this with {@link #failLater}: the peer stops being active at
 * once, so nothing more is built or posted for it, and the teardown runs between the engine's
 * stages, where no queue is being walked.
 */
final class PeerTeardown {

    private static final Logger LOG = LoggerFactory.getLogger(PeerTeardown.class);

    private final ArrayDeque<Peer> later = new ArrayDeque<>();
    private final Counters counters;
    private Handshake handshake;
    private LongCtsReceiver longCtsReceiver;
    private LongReadReceiver longReadReceiver;
    private PeerErrors peerErrors;
    private Receipts receipts;
    private TxQueue txQueue;
    private TxSide tx;
    private RxSide rx;

    PeerTeardown(Counters counters) {
        this.counters = counters;
    }

    void components(Handshake handshakes, LongCtsReceiver longCts, LongReadReceiver longRead, PeerErrors errors,
                    Receipts receipt, TxQueue queue, TxSide txSide, RxSide rxSide) {
        handshake = handshakes;
        peerErrors = errors;
        receipts = receipt;
        longCtsReceiver = longCts;
        longReadReceiver = longRead;
        txQueue = queue;
        tx = txSide;
        rx = rxSide;
    }

    /** Makes an active peer inactive now and ends its operations at the next {@link #runDeferred()}. */
    void failLater(Peer peer, Peer.State state) {
        if (deactivate(peer, state)) {
            later.add(peer);
        }
    }

    /** Makes an active peer inactive and ends its operations now; outside the progress path only. */
    void fail(Peer peer, Peer.State state) {
        if (deactivate(peer, state)) {
            end(peer);
        }
    }

    void runDeferred() {
        for (Peer peer = later.poll(); peer != null; peer = later.poll()) {
            end(peer);
        }
    }

    private boolean deactivate(Peer peer, Peer.State state) {
        if (!peer.isActive()) {
            return false;
        }
        peer.state = state;
        if (state == Peer.State.UNREACHABLE) {
            counters.increment(EndpointCounter.PEERS_UNREACHABLE);
            LOG.warn("{} is unreachable; its operations end with PEER_UNREACHABLE", peer);
        }
        return true;
    }

    private void end(Peer peer) {
        handshake.forget(peer);
        longCtsReceiver.forget(peer);
        longReadReceiver.forget(peer);
        peerErrors.forget(peer);
        receipts.forget(peer);
        txQueue.forget(peer);
        tx.forget(peer);
        rx.forget(peer);
    }
}
