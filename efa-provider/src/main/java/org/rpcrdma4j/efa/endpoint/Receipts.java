package org.rpcrdma4j.efa.endpoint;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import org.rpcrdma4j.efa.EndpointAddress;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.wire.BaseHeaderFlyweight;
import org.rpcrdma4j.efa.wire.DecodedPacket;
import org.rpcrdma4j.efa.wire.ExtraFeature;
import org.rpcrdma4j.efa.wire.PacketFlags;
import org.rpcrdma4j.efa.wire.PacketType;
import org.rpcrdma4j.efa.wire.ReceiptFlyweight;

/**
 * The RECEIPT packet of the delivery-complete extra feature (EFA RDM protocol v4 §4.2, feature 1): the target
 * of a DC REQ tells the sender that the data is in the application's buffer, and the sender's operation
 * completes only then.
 *
 * <p>Sent: by a receive, or the target of a write, that a DC REQ started, when it completes with its data in
 * place ({@link RxSide#complete}): for an unexpected message, once a receive took it and its bytes were copied
 * over. It names the sender's operation by the REQ's {@code send_id} and repeats the message's {@code msg_id}
 * (0 for a write, which has none; libfabric's provider sends whatever its RX entry held); our connid always
 * goes with it, as the provider's does. One that finds no packet buffer waits, and its RX entry keeps its id
 * meanwhile (libfabric keeps its rxe until the RECEIPT's send completion), so what is owed is bounded by the
 * RX entry table.
 *
 * <p>Received: it is matched by {@code send_id} to one of our operations with that peer that runs a DC variant
 * and has built all its data and is still waiting for it (for a message, with the same {@code msg_id}), the
 * same for every kind of operation; anything else (no such operation, a second RECEIPT, one before the data
 * could have arrived) is dropped and counted as an orphan. libfabric's provider looks the operation up by
 * {@code tx_id} alone.
 */
final class Receipts {

    private final ReceiptFlyweight receipt = new ReceiptFlyweight();
    private final BaseHeaderFlyweight base = new BaseHeaderFlyweight();
    private final ArrayDeque<RxEntry> owed = new ArrayDeque<>();
    private final PacketPool packets;
    private final TxQueue txQueue;
    private final EndpointAddress self;
    private final Counters counters;
    private TxSide tx;
    private RxSide rx;

    Receipts(PacketPool packets, TxQueue txQueue, EndpointAddress self, Counters counters) {
        this.packets = packets;
        this.txQueue = txQueue;
        this.self = self;
        this.counters = counters;
    }

    void sides(TxSide txSide, RxSide rxSide) {
        tx = txSide;
        rx = rxSide;
    }

    /** @return whether a REQ of this type asks its target for a RECEIPT: the DC types (§4.2) */
    static boolean requested(PacketType type) {
        return type.requiredFeatures().contains(ExtraFeature.DELIVERY_COMPLETE);
    }

    /**
     * Sends the RECEIPT a completed entry owes its sender.
     *
     * @return true if it went out now; false if it waits for a packet buffer, the entry with it
     */
    boolean send(RxEntry entry) {
        final PacketEntry packet = owed.isEmpty() ? packets.acquire() : null;
        if (packet == null) {
            entry.receiptOwed = true;
            owed.add(entry);
            return false;
        }
        post(packet, entry);
        return true;
    }

    /** A RECEIPT arrived: the operation it names has its data in place at the peer. */
    void onReceived(Peer peer, ByteBuffer buffer, DecodedPacket packet) {
        receipt.wrap(buffer, packet.offset());
        final TxEntry op = tx.awaitingReceipt(peer, receipt.txId(), (int) receipt.msgId());
        if (op == null) {
            counters.increment(EndpointCounter.ORPHAN_PACKETS);
            return;
        }
        counters.increment(EndpointCounter.RECEIPTS_RECEIVED);
        op.receiptReceived = true;
        tx.finish(op);
    }

    /** Drops the RECEIPTs owed to a peer that is no longer active, and frees their entries. */
    void forget(Peer peer) {
        owed.removeIf(entry -> {
            if (entry.peer != peer) {
                return false;
            }
            rx.receiptSent(entry);
            return true;
        });
    }

    /** Forgets every RECEIPT owed: the endpoint is closing, and {@link RxSide#cancelAll} frees the entries. */
    void clear() {
        owed.clear();
    }

    /** @return whether no RECEIPT is owed */
    boolean idle() {
        return owed.isEmpty();
    }

    /** @return how many owed RECEIPTs went out */
    int progress() {
        int sent = 0;
        while (!owed.isEmpty()) {
            final PacketEntry packet = packets.acquire();
            if (packet == null) {
                break;
            }
            final RxEntry entry = owed.poll();
            post(packet, entry);
            rx.receiptSent(entry);
            sent++;
        }
        return sent;
    }

    private void post(PacketEntry packet, RxEntry entry) {
        build(packet, entry.peer, Integer.toUnsignedLong(entry.sendId), Integer.toUnsignedLong(entry.msgId));
        txQueue.send(packet);
        counters.increment(EndpointCounter.RECEIPTS_SENT);
    }

    /** Builds a RECEIPT as the provider does: the sender's send_id and msg_id, our connid always present. */
    void build(PacketEntry packet, Peer peer, long sendId, long msgId) {
        final ByteBuffer buffer = packet.buffer;
        base.wrap(buffer, 0).type(PacketType.RECEIPT.id()).version(BaseHeaderFlyweight.PROTOCOL_VERSION)
                .flags(PacketFlags.CONNID_HDR_FLAG);
        receipt.wrap(buffer, 0).txId(sendId).msgId(msgId).connid(Integer.toUnsignedLong(self.connid()));
        packet.length = ReceiptFlyweight.HEADER_LENGTH;
        packet.assign(peer);
    }
}
