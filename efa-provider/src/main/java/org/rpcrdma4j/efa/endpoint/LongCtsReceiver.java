package org.rpcrdma4j.efa.endpoint;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import org.rpcrdma4j.efa.EndpointAddress;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.wire.BaseHeaderFlyweight;
import org.rpcrdma4j.efa.wire.CtsDataFlyweight;
import org.rpcrdma4j.efa.wire.CtsFlyweight;
import org.rpcrdma4j.efa.wire.DecodedPacket;
import org.rpcrdma4j.efa.wire.LongCtsRtmFlyweight;
import org.rpcrdma4j.efa.wire.PacketFlags;
import org.rpcrdma4j.efa.wire.PacketType;

/**
 * The receiving side of the long-CTS message subprotocol (EFA RDM protocol v4 §3.2): the
 * LONGCTS_RTM is matched like any RTM; once matched, each CTS grants a window of
 * {@code recv_length} bytes, always more than 0 so the transfer moves on, of at most the credits
 * the sender asked for and this endpoint allows; when the window's data has arrived the next CTS
 * goes out. An unexpected long-CTS message gets no CTS until a receive matches it.
 *
 * <p>The long-CTS RTM a sender falls back to after our READ_NACK (§4.7) is marked
 * {@code REQ_READ_NACK} and carries no data; its msg_id was matched and counted in the reorder
 * window with the LONGREAD_RTM, so it goes straight to the receive waiting for it
 * (DISCREPANCIES.md B6).
 *
 * <p>The same machinery receives the CTSDATA of an emulated long-CTS write at its target and of an
 * emulated read at its requester (§3.3): their RX entries start elsewhere ({@link LongCtsRtw},
 * {@link EmulatedRead}), and from the first window on they are long-CTS receives like any other.
 *
 * <p>A DC_LONGCTS_RTM (§4.2) runs the same way; the receive sends its RECEIPT when it completes ({@link Receipts}).
 *
 * <p>A CTS that finds no packet buffer is not lost: its receive waits on the CTS-pending list and
 * the CTS is built from the receive's state at the next progress.
 */
final class LongCtsReceiver {

    private final LongCtsRtmFlyweight rtm = new LongCtsRtmFlyweight();
    private final CtsFlyweight cts = new CtsFlyweight();
    private final CtsDataFlyweight data = new CtsDataFlyweight();
    private final BaseHeaderFlyweight base = new BaseHeaderFlyweight();
    private final ArrayDeque<RxEntry> ctsPending = new ArrayDeque<>();
    private final RxSide rx;
    private final PacketPool packets;
    private final TxQueue txQueue;
    private final EndpointAddress self;
    private final Counters counters;
    private final int credits;
    private final int dataCapacity;

    LongCtsReceiver(RxSide rx, PacketPool packets, TxQueue txQueue, EndpointAddress self, Counters counters,
                    int mtu, int credits) {
        this.rx = rx;
        this.packets = packets;
        this.txQueue = txQueue;
        this.self = self;
        this.counters = counters;
        this.credits = credits;
        this.dataCapacity = mtu - CtsDataFlyweight.HEADER_LENGTH - CtsDataFlyweight.CONNID_HEADER_LENGTH;
    }

    /** A LONGCTS_RTM or DC_LONGCTS_RTM is next in msg_id order: match it and place the bytes it carries. */
    void onRtm(Peer peer, ByteBuffer buffer, DecodedPacket packet) {
        rtm.wrap(buffer, packet.offset());
        final RxEntry entry = rx.arrive(peer, Protocol.LONG_CTS, buffer, packet, (int) rtm.msgId(),
                packet.type().isTagged() ? rtm.tag() : 0, rtm.msgLength(), packet.payloadLength());
        if (entry == null) {
            return;
        }
        start(entry, buffer, packet);
    }

    /** The fallback RTM after our READ_NACK: the nacked receive goes on as long-CTS from byte 0. */
    void onReadNackRtm(Peer peer, ByteBuffer buffer, DecodedPacket packet) {
        rtm.wrap(buffer, packet.offset());
        final RxEntry entry = peer.readNacked.remove((int) rtm.msgId());
        if (entry == null) {
            counters.increment(EndpointCounter.ORPHAN_PACKETS);
            return;
        }
        // The LONGREAD_RTM has no DC variant; the fallback RTM of a delivery-complete message is a DC one (§4.2).
        entry.deliveryComplete = Receipts.requested(packet.type());
        start(entry, buffer, packet);
    }

    /** Takes the sender's state from the RTM just wrapped and places the bytes it carries. */
    private void start(RxEntry entry, ByteBuffer buffer, DecodedPacket packet) {
        entry.sendId = (int) rtm.sendId();
        entry.creditRequest = rtm.creditRequest();
        counters.add(EndpointCounter.BYTES_COPIED, entry.place(0, buffer, packet.payloadOffset(), packet.payloadLength()));
        entry.windowEnd = entry.bytesReceived;
        rx.afterData(entry);
    }

    void onCtsData(Peer peer, ByteBuffer buffer, DecodedPacket packet) {
        data.wrap(buffer, packet.offset());
        final RxEntry entry = rx.longCtsEntry(peer, data.recvId());
        if (entry == null) {
            counters.increment(EndpointCounter.ORPHAN_PACKETS);
            return;
        }
        if (!MediumRtm.fits(data.segOffset(), data.segLength(), entry.msgLength)) {
            // §3.2: data outside the message; seg_length was checked against the packet by the decoder.
            counters.increment(EndpointCounter.MALFORMED_PACKETS);
            return;
        }
        counters.add(EndpointCounter.BYTES_COPIED,
                entry.place(data.segOffset(), buffer, packet.payloadOffset(), (int) data.segLength()));
        rx.afterData(entry);
    }

    /** Grants the next window, now or, without a packet buffer, at a later progress. */
    void sendCts(RxEntry entry) {
        if (entry.ctsPending) {
            return;
        }
        final PacketEntry packet = packets.acquire();
        if (packet == null) {
            entry.ctsPending = true;
            ctsPending.add(entry);
            return;
        }
        build(packet, entry);
        txQueue.send(packet);
    }

    /** Drops the CTS packets owed to a peer that is no longer active. */
    void forget(Peer peer) {
        ctsPending.removeIf(entry -> entry.peer == peer);
    }

    /** Forgets every CTS owed: the endpoint is closing. */
    void clear() {
        ctsPending.clear();
    }

    /** @return whether no CTS is owed */
    boolean idle() {
        return ctsPending.isEmpty();
    }

    /** @return how many pending CTS packets went out */
    int progress() {
        int sent = 0;
        while (!ctsPending.isEmpty()) {
            final PacketEntry packet = packets.acquire();
            if (packet == null) {
                break;
            }
            final RxEntry entry = ctsPending.poll();
            entry.ctsPending = false;
            build(packet, entry);
            txQueue.send(packet);
            sent++;
        }
        return sent;
    }

    private void build(PacketEntry packet, RxEntry entry) {
        final long granted = Math.max(1, Math.min(entry.creditRequest, credits));
        // §3.2: recv_length must be > 0; a CTS is only sent while bytes remain.
        final long window = Math.min(entry.msgLength - entry.bytesReceived, granted * dataCapacity);
        entry.windowEnd = entry.bytesReceived + window;
        final ByteBuffer buffer = packet.buffer;
        for (int i = 0; i < CtsFlyweight.HEADER_LENGTH; i++) {
            buffer.put(i, (byte) 0);
        }
        // DISCREPANCIES.md B8: a CTS always carries the connid, in its multiuse slot.
        // §3.2 table 3.6: the CTS of an emulated read says so (CTS_EMULATED_READ, the provider's CTS_READ_REQ).
        base.wrap(buffer, 0).type(PacketType.CTS.id()).version(BaseHeaderFlyweight.PROTOCOL_VERSION)
                .flags(PacketFlags.CONNID_HDR_FLAG | (entry.readOp != null ? PacketFlags.CTS_READ_REQ_FLAG : 0));
        cts.wrap(buffer, 0).connid(Integer.toUnsignedLong(self.connid())).sendId(Integer.toUnsignedLong(entry.sendId))
                .recvId(RxSide.wireId(entry)).recvLength(window);
        packet.length = CtsFlyweight.HEADER_LENGTH;
        packet.assign(entry.peer);
    }
}
