package org.rpcrdma4j.efa.endpoint;

import java.util.ArrayDeque;
import java.util.Iterator;
import org.rpcrdma4j.efa.EfaErrorCode;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.wire.ExtraFeature;

/**
 * Where every send starts, as in libfabric's {@code efa_rdm_msg_post_rtm}: it is given its {@code msg_id},
 * {@link ProtocolSelector#select} picks its subprotocol (a runting read's runt counted against the peer's
 * budget at once, so that the next send's choice sees it), and it goes on the TX side. An atomic starts here
 * too, its RTA taking the next {@code msg_id} as a message does, its subprotocol fixed by its call.
 *
 * <p>A send that asks for delivery complete needs the peer's handshake first (§2.1, §4.2): it waits for it
 * (triggering it if need be), and fails with {@link EfaErrorCode#PEER_LACKS_FEATURE} if the handshake does not
 * announce the feature, as libfabric's provider answers {@code -FI_EOPNOTSUPP} before v2.6.0 (which dropped
 * the check, taking every peer to have the feature); a delivery-complete write atomic (DC_WRITE_RTA) the same.
 * Its {@code msg_id} is given only then, so that a send that
 * fails leaves no gap in the peer's msg_id sequence, and the sends after it to the same peer wait behind it, so
 * that they keep their order ({@code FI_ORDER_SAS}). libfabric's provider gives the msg_id before it waits.
 */
final class MessageStart {

    private final ArrayDeque<TxEntry> beforeHandshake = new ArrayDeque<>();
    private final Handshake handshake;
    private final ProtocolSelector selector;
    private final LongReadSender longRead;
    private final TxSide tx;
    private final Counters counters;

    MessageStart(Handshake handshake, ProtocolSelector selector, LongReadSender longRead, TxSide tx,
                 Counters counters) {
        this.handshake = handshake;
        this.selector = selector;
        this.longRead = longRead;
        this.tx = tx;
        this.counters = counters;
    }

    void start(TxEntry entry) {
        final Peer peer = entry.peer;
        if (peer.messagesBeforeHandshake == 0 && (!entry.deliveryComplete || peer.handshakeReceived)) {
            post(entry);
        } else {
            // May wait for a peer that never answers; TxSide.forget ends it with the peer.
            handshake.trigger(peer);
            peer.messagesBeforeHandshake++;
            beforeHandshake.add(entry);
        }
    }

    /** @return whether no send waits for a handshake */
    boolean idle() {
        return beforeHandshake.isEmpty();
    }

    /** @return how many waiting sends were started or dropped */
    int progress() {
        int done = 0;
        final Iterator<TxEntry> it = beforeHandshake.iterator();
        while (it.hasNext()) {
            final TxEntry entry = it.next();
            if (entry.completed || entry.peer.handshakeReceived) {
                it.remove();
                entry.peer.messagesBeforeHandshake--;
                if (!entry.completed) {
                    post(entry);
                }
                done++;
            }
        }
        return done;
    }

    /** Forgets every send waiting: the endpoint is closing. */
    void clear() {
        beforeHandshake.clear();
    }

    private void post(TxEntry entry) {
        final Peer peer = entry.peer;
        if (entry.deliveryComplete && !peer.has(ExtraFeature.DELIVERY_COMPLETE)) {
            tx.fail(entry, EfaErrorCode.PEER_LACKS_FEATURE);
            return;
        }
        // §3.2: msg_id records the sending order; it wraps at 2^32 like the int it is held in.
        entry.msgId = peer.nextTxMsgId++;
        if (entry.protocol != null) {
            // An atomic: its RTA is chosen by its call.
            tx.start(entry);
            return;
        }
        entry.protocol = selector.select(entry.length, peer, entry.tagged, entry.hasCqData, entry.deliveryComplete);
        if (entry.protocol == Protocol.RUNT_READ) {
            entry.runtLength = selector.runtLength(peer, entry.length);
        }
        if ((entry.protocol == Protocol.LONG_READ || entry.protocol == Protocol.RUNT_READ)
                && !longRead.register(entry)) {
            // §4.1: registration is a limited resource; without it the message goes long-CTS (libfabric's
            // efa_rdm_ope_post_send_fallback).
            entry.protocol = Protocol.LONG_CTS;
            entry.runtLength = 0;
        }
        // Counted before its packets are built, so that the next message's choice sees it.
        entry.reserveRunt();
        if (entry.protocol == Protocol.EAGER) {
            counters.increment(EndpointCounter.EAGER_MESSAGES_SENT);
        } else if (entry.protocol == Protocol.MEDIUM) {
            counters.increment(EndpointCounter.MEDIUM_MESSAGES_SENT);
        }
        tx.start(entry);
    }
}
