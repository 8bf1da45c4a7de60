package org.rpcrdma4j.efa.endpoint;

import java.nio.ByteBuffer;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.wire.DecodedPacket;
import org.rpcrdma4j.efa.wire.MediumRtmFlyweight;
import org.rpcrdma4j.efa.wire.PacketType;

/**
 * The medium message subprotocol (EFA RDM protocol v4 §3.2, table 3.4): the message is cut into
 * MEDIUM_RTM packets, all with the same msg_id, sent at once without flow control. Offset 8 holds
 * the whole message length, not the segment length (DISCREPANCIES.md A2); a segment's length is
 * what the packet holds after its headers, and {@code seg_offset} places it.
 *
 * <p>A partial send is normal: when packets or the device's send queue run out, the segments
 * built so far are posted or queued and the rest are built at a later progress, where the message
 * left off (§3.2, "partial send").
 */
final class MediumRtm {

    private final MediumRtmFlyweight rtm = new MediumRtmFlyweight();
    private final ReqHeader header;
    private final RxSide rx;
    private final int mtu;
    private final int maxMessageSize;
    private final Counters counters;

    /**
     * @param maxMessageSize the largest medium message accepted: an unexpected one is staged whole,
     *                       so {@code msg_length} from the wire must be bounded before it sizes anything
     */
    MediumRtm(ReqHeader header, RxSide rx, int mtu, int maxMessageSize, Counters counters) {
        this.header = header;
        this.rx = rx;
        this.mtu = mtu;
        this.maxMessageSize = maxMessageSize;
        this.counters = counters;
    }

    /** Builds the next segment, from where the previous one ended. */
    void build(PacketEntry packet, TxEntry tx) {
        final PacketType type = tx.tagged ? PacketType.MEDIUM_TAGRTM : PacketType.MEDIUM_MSGRTM;
        final ByteBuffer buffer = packet.buffer;
        final int at = header.write(buffer, type, RxSide.categoryFlags(tx.tagged), tx.peer, tx.hasCqData, tx.cqData);
        final int segment = Math.min(tx.length - tx.bytesBuilt, mtu - at);
        rtm.wrap(buffer, 0).msgId(Integer.toUnsignedLong(tx.msgId)).msgLength(tx.length).segOffset(tx.bytesBuilt);
        if (tx.tagged) {
            rtm.tag(tx.tag);
        }
        buffer.put(at, tx.data, tx.bytesBuilt, segment);
        counters.add(EndpointCounter.BYTES_COPIED, segment);
        packet.length = at + segment;
        packet.dataLength = segment;
        tx.bytesBuilt += segment;
        tx.reqBuilt = true;
    }

    /** The first segment to arrive of a message that is next in msg_id order: match it. */
    void onFirstSegment(Peer peer, ByteBuffer buffer, DecodedPacket packet) {
        rtm.wrap(buffer, packet.offset());
        final long msgLength = rtm.msgLength();
        if (Long.compareUnsigned(msgLength, maxMessageSize) > 0) {
            // A sender picks medium only up to its medium limit (libfabric's default 64 KiB, as ours).
            counters.increment(EndpointCounter.MALFORMED_PACKETS);
            return;
        }
        if (!fits(rtm.segOffset(), packet.payloadLength(), msgLength)) {
            counters.increment(EndpointCounter.MALFORMED_PACKETS);
            return;
        }
        final int msgId = (int) rtm.msgId();
        final RxEntry entry = rx.arrive(peer, Protocol.MEDIUM, buffer, packet, msgId,
                packet.type().isTagged() ? rtm.tag() : 0, msgLength, (int) msgLength);
        if (entry == null) {
            return;
        }
        counters.add(EndpointCounter.BYTES_COPIED,
                entry.place(rtm.segOffset(), buffer, packet.payloadOffset(), packet.payloadLength()));
        if (!entry.isComplete()) {
            peer.mediumInProgress.put(msgId, entry);
        }
        rx.afterData(entry);
    }

    /** A later segment of a message already matched or queued as unexpected. */
    void onLaterSegment(RxEntry entry, ByteBuffer buffer, DecodedPacket packet) {
        rtm.wrap(buffer, packet.offset());
        if (!fits(rtm.segOffset(), packet.payloadLength(), entry.msgLength)) {
            counters.increment(EndpointCounter.MALFORMED_PACKETS);
            return;
        }
        counters.add(EndpointCounter.BYTES_COPIED,
                entry.place(rtm.segOffset(), buffer, packet.payloadOffset(), packet.payloadLength()));
        rx.afterData(entry);
    }

    /**
     * §3.2: a segment lies inside its message. {@code seg_offset} is a u64 from the wire, checked
     * before it places anything.
     */
    static boolean fits(long segOffset, long segLength, long msgLength) {
        return Long.compareUnsigned(segOffset, msgLength) <= 0 && Long.compareUnsigned(segLength, msgLength - segOffset) <= 0;
    }
}
