package org.rpcrdma4j.efa.endpoint;

import java.nio.ByteBuffer;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.wire.DcMediumRtmFlyweight;
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
 *
 * <p>Its delivery-complete variant (§4.2), DC_MEDIUM_MSGRTM or DC_MEDIUM_TAGRTM, carries the {@code send_id}
 * the receiver's RECEIPT names in every segment, which moves the fields after it by 8 bytes.
 */
final class MediumRtm {

    private final MediumRtmFlyweight rtm = new MediumRtmFlyweight();
    private final DcMediumRtmFlyweight dcRtm = new DcMediumRtmFlyweight();
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

    /** @return the REQ type of a medium message (§3.2, §4.2) */
    static PacketType type(boolean tagged, boolean deliveryComplete) {
        if (deliveryComplete) {
            return tagged ? PacketType.DC_MEDIUM_TAGRTM : PacketType.DC_MEDIUM_MSGRTM;
        }
        return tagged ? PacketType.MEDIUM_TAGRTM : PacketType.MEDIUM_MSGRTM;
    }

    /** Builds the next segment, from where the previous one ended. */
    void build(PacketEntry packet, TxEntry tx) {
        final ByteBuffer buffer = packet.buffer;
        final int at = writeHeader(buffer, tx.peer, tx.tagged, tx.awaitsReceipt(), tx.msgId, tx.id, tx.length,
                tx.bytesBuilt, tx.tag, tx.hasCqData, tx.cqData);
        final int segment = Math.min(tx.length - tx.bytesBuilt, mtu - at);
        buffer.put(at, tx.data, tx.bytesBuilt, segment);
        counters.add(EndpointCounter.BYTES_COPIED, segment);
        packet.length = at + segment;
        packet.dataLength = segment;
        tx.bytesBuilt += segment;
        tx.reqBuilt = true;
    }

    /**
     * Writes a segment's headers (table 3.4, or its DC variant with {@code send_id}).
     *
     * @return the header length: where the segment's data starts
     */
    int writeHeader(ByteBuffer buffer, Peer peer, boolean tagged, boolean deliveryComplete, int msgId, long sendId,
                    long msgLength, long segOffset, long tag, boolean hasCqData, long cqData) {
        final int at = header.write(buffer, type(tagged, deliveryComplete), RxSide.categoryFlags(tagged), peer,
                hasCqData, cqData);
        if (deliveryComplete) {
            dcRtm.wrap(buffer, 0).msgId(Integer.toUnsignedLong(msgId)).sendId(sendId).msgLength(msgLength)
                    .segOffset(segOffset);
            if (tagged) {
                dcRtm.tag(tag);
            }
        } else {
            rtm.wrap(buffer, 0).msgId(Integer.toUnsignedLong(msgId)).msgLength(msgLength).segOffset(segOffset);
            if (tagged) {
                rtm.tag(tag);
            }
        }
        return at;
    }

    /** The first segment to arrive of a message that is next in msg_id order: match it. */
    void onFirstSegment(Peer peer, ByteBuffer buffer, DecodedPacket packet) {
        final boolean dc = wrap(buffer, packet);
        final long msgLength = dc ? dcRtm.msgLength() : rtm.msgLength();
        final long segOffset = dc ? dcRtm.segOffset() : rtm.segOffset();
        if (Long.compareUnsigned(msgLength, maxMessageSize) > 0) {
            // A sender picks medium only up to its medium limit (libfabric's default 64 KiB, as ours).
            counters.increment(EndpointCounter.MALFORMED_PACKETS);
            return;
        }
        if (!fits(segOffset, packet.payloadLength(), msgLength)) {
            counters.increment(EndpointCounter.MALFORMED_PACKETS);
            return;
        }
        final int msgId = (int) (dc ? dcRtm.msgId() : rtm.msgId());
        final long tag = !packet.type().isTagged() ? 0 : dc ? dcRtm.tag() : rtm.tag();
        final RxEntry entry = rx.arrive(peer, Protocol.MEDIUM, buffer, packet, msgId, tag, msgLength, (int) msgLength);
        if (entry == null) {
            return;
        }
        if (dc) {
            entry.sendId = (int) dcRtm.sendId();
        }
        counters.add(EndpointCounter.BYTES_COPIED,
                entry.place(segOffset, buffer, packet.payloadOffset(), packet.payloadLength()));
        if (!entry.isComplete()) {
            peer.mediumInProgress.put(msgId, entry);
        }
        rx.afterData(entry);
    }

    /** A later segment of a message already matched or queued as unexpected. */
    void onLaterSegment(RxEntry entry, ByteBuffer buffer, DecodedPacket packet) {
        final long segOffset = wrap(buffer, packet) ? dcRtm.segOffset() : rtm.segOffset();
        if (!fits(segOffset, packet.payloadLength(), entry.msgLength)) {
            counters.increment(EndpointCounter.MALFORMED_PACKETS);
            return;
        }
        counters.add(EndpointCounter.BYTES_COPIED,
                entry.place(segOffset, buffer, packet.payloadOffset(), packet.payloadLength()));
        rx.afterData(entry);
    }

    /** @return whether the packet is a DC_MEDIUM_RTM, wrapped by {@link #dcRtm}; else {@link #rtm} wraps it */
    private boolean wrap(ByteBuffer buffer, DecodedPacket packet) {
        if (Receipts.requested(packet.type())) {
            dcRtm.wrap(buffer, packet.offset());
            return true;
        }
        rtm.wrap(buffer, packet.offset());
        return false;
    }

    /** @return whether a packet is a segment of a medium message, DC or not */
    static boolean isMedium(PacketType type) {
        return type == PacketType.MEDIUM_MSGRTM || type == PacketType.MEDIUM_TAGRTM
                || type == PacketType.DC_MEDIUM_MSGRTM || type == PacketType.DC_MEDIUM_TAGRTM;
    }

    /**
     * §3.2: a segment lies inside its message. {@code seg_offset} is a u64 from the wire, checked
     * before it places anything.
     */
    static boolean fits(long segOffset, long segLength, long msgLength) {
        return Long.compareUnsigned(segOffset, msgLength) <= 0 && Long.compareUnsigned(segLength, msgLength - segOffset) <= 0;
    }
}
