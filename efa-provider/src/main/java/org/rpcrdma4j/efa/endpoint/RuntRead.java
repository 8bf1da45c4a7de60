package org.rpcrdma4j.efa.endpoint;

import java.nio.ByteBuffer;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.device.RmaIov;
import org.rpcrdma4j.efa.wire.DecodedPacket;
import org.rpcrdma4j.efa.wire.PacketType;
import org.rpcrdma4j.efa.wire.RmaIovFlyweight;
import org.rpcrdma4j.efa.wire.RuntReadRtmFlyweight;

/**
 * The runting read message subprotocol (EFA RDM protocol v4 §4.5, libfabric 1.16 on): the message's first
 * {@code runt_length} bytes go in RUNTREAD_MSGRTM or RUNTREAD_TAGRTM packets, all with its msg_id, each
 * with the {@code read_iov} of the whole registered send buffer and its {@code seg_offset}; the receiver
 * places them as medium segments, pulls the rest from {@code runt_length} on with RDMA reads and answers
 * EOR ({@link LongReadReceiver}). A message that fits its runt is not read and gets no EOR. The sender's
 * registration, EOR, READ_NACK and PEER_ERROR are {@link LongReadSender}'s, as for long-read.
 *
 * <p>How many bytes go as runts is {@link ProtocolSelector#runtLength}'s choice; how they are cut into
 * packets is libfabric's ({@code efa_rdm_ope_prepare_to_post_send}): as few packets as hold them, of equal
 * size rounded down to 8, the remainder added to the last if it fits, else a packet of its own.
 *
 * <p>A receiver that cannot register for the reads answers READ_NACK once every runt packet has arrived
 * (§4.7); the message goes on as long-CTS from {@code runt_length}, its LONGCTS_RTM carrying no data.
 */
final class RuntRead {

    /** libfabric's {@code EFA_RDM_EP_DEFAULT_MEMORY_ALIGNMENT}: runt lengths and packets are multiples of it. */
    static final int ALIGNMENT = 8;

    private final RuntReadRtmFlyweight rtm = new RuntReadRtmFlyweight();
    private final RmaIovFlyweight iov = new RmaIovFlyweight();
    private final ReqHeader header;
    private final RxSide rx;
    private final LongReadSender longRead;
    private final LongReadReceiver longReadReceiver;
    private final Counters counters;
    private final int mtu;
    private final long maxRdmaSize;

    RuntRead(ReqHeader header, RxSide rx, LongReadSender longRead, LongReadReceiver longReadReceiver,
             Counters counters, int mtu, long maxRdmaSize) {
        this.header = header;
        this.rx = rx;
        this.longRead = longRead;
        this.longReadReceiver = longReadReceiver;
        this.counters = counters;
        this.mtu = mtu;
        this.maxRdmaSize = maxRdmaSize;
    }

    /**
     * The data length of the runt packet that starts at {@code built}, as libfabric cuts {@code runt} bytes
     * into packets of at most {@code capacity} bytes.
     */
    static int segmentLength(int runt, int built, int capacity) {
        final int packets = (runt - 1) / capacity + 1;
        final int even = ((runt - 1) / packets + 1) & -ALIGNMENT;
        final int remainder = runt % even;
        final int left = runt - built;
        return remainder > 0 && even + remainder <= capacity && left == even + remainder ? left : Math.min(even, left);
    }

    /** Builds the next runt packet: the REQ headers, the read_iov, then the next runt bytes. */
    void build(PacketEntry packet, TxEntry tx) {
        final PacketType type = tx.tagged ? PacketType.RUNTREAD_TAGRTM : PacketType.RUNTREAD_MSGRTM;
        final ByteBuffer buffer = packet.buffer;
        final int at = writeHeader(buffer, type, tx.peer, tx.hasCqData, tx.cqData, tx.msgId, tx.length, tx.id,
                LongReadSender.readIovCount(tx.length, maxRdmaSize), tx.bytesBuilt, tx.runtLength, tx.tag);
        final int data = LongReadSender.writeReadIov(iov, buffer, at, tx.described.address(), tx.described.key(),
                tx.length, maxRdmaSize);
        final int segment = segmentLength(tx.runtLength, tx.bytesBuilt, mtu - data);
        buffer.put(data, tx.data, tx.bytesBuilt, segment);
        counters.add(EndpointCounter.BYTES_COPIED, segment);
        packet.length = data + segment;
        packet.dataLength = segment;
        packet.runt = true;
        if (tx.bytesBuilt == 0) {
            counters.increment(EndpointCounter.RUNT_READ_MESSAGES_SENT);
            if (tx.awaitsEor()) {
                longRead.countRead(tx);
            }
        }
        tx.bytesBuilt += segment;
        tx.reqBuilt = true;
    }

    /**
     * Writes a RUNTREAD_MSGRTM's or RUNTREAD_TAGRTM's headers (§4.5, table 4.4).
     *
     * @return the header length: where the read_iov starts
     */
    int writeHeader(ByteBuffer buffer, PacketType type, Peer peer, boolean hasCqData, long cqData, int msgId,
                    long msgLength, long sendId, long readIovCount, long segOffset, long runtLength, long tag) {
        final int at = header.write(buffer, type, RxSide.categoryFlags(type.isTagged()), peer, hasCqData, cqData);
        rtm.wrap(buffer, 0).msgId(Integer.toUnsignedLong(msgId)).msgLength(msgLength).sendId(sendId)
                .readIovCount(readIovCount).segOffset(segOffset).runtLength(runtLength);
        if (type.isTagged()) {
            rtm.tag(tag);
        }
        return at;
    }

    /** The first runt packet to arrive of a message that is next in msg_id order: match it and place its bytes. */
    void onFirstSegment(Peer peer, ByteBuffer buffer, DecodedPacket packet) {
        rtm.wrap(buffer, packet.offset());
        final long msgLength = rtm.msgLength();
        final long runtLength = rtm.runtLength();
        final RmaIov[] readIov = LongReadReceiver.readIov(buffer, packet, msgLength);
        // The runt is staged whole while no receive matches it, so it is bounded before it sizes anything.
        if (runtLength <= 0 || runtLength > Integer.MAX_VALUE || Long.compareUnsigned(runtLength, msgLength) > 0
                || readIov == null || !fits(runtLength, packet)) {
            counters.increment(EndpointCounter.MALFORMED_PACKETS);
            return;
        }
        final int msgId = (int) rtm.msgId();
        final RxEntry entry = rx.arrive(peer, Protocol.RUNT_READ, buffer, packet, msgId,
                packet.type().isTagged() ? rtm.tag() : 0, msgLength, (int) runtLength);
        if (entry == null) {
            return;
        }
        counters.increment(EndpointCounter.RUNT_READ_MESSAGES_RECEIVED);
        entry.sendId = (int) rtm.sendId();
        entry.runtLength = runtLength;
        // A message that fits its runt is not read (libfabric reads only when msg_length > runt_length).
        entry.readIov = msgLength > runtLength ? readIov : null;
        peer.mediumInProgress.put(msgId, entry);
        place(entry, buffer, packet);
    }

    /** A later runt packet of a message already matched or queued as unexpected. */
    void onLaterSegment(RxEntry entry, ByteBuffer buffer, DecodedPacket packet) {
        rtm.wrap(buffer, packet.offset());
        if (rtm.msgLength() != entry.msgLength || rtm.runtLength() != entry.runtLength
                || !fits(entry.runtLength, packet)) {
            counters.increment(EndpointCounter.MALFORMED_PACKETS);
            return;
        }
        place(entry, buffer, packet);
    }

    /** §4.5: a runt packet carries data, inside the runt, and no more than the runt has left to arrive. */
    private boolean fits(long runtLength, DecodedPacket packet) {
        return packet.payloadLength() > 0 && MediumRtm.fits(rtm.segOffset(), packet.payloadLength(), runtLength);
    }

    /**
     * Places the runt bytes the packet just wrapped carries. Once every runt byte has arrived the message is no
     * longer in progress by msg_id, and a READ_NACK it owes goes (§4.7).
     */
    private void place(RxEntry entry, ByteBuffer buffer, DecodedPacket packet) {
        if (entry.runtReceived + packet.payloadLength() > entry.runtLength) {
            counters.increment(EndpointCounter.MALFORMED_PACKETS);
            return;
        }
        counters.add(EndpointCounter.BYTES_COPIED,
                entry.place(rtm.segOffset(), buffer, packet.payloadOffset(), packet.payloadLength()));
        entry.runtReceived += packet.payloadLength();
        final boolean runtIn = entry.runtReceived == entry.runtLength;
        if (runtIn) {
            entry.peer.mediumInProgress.remove(entry.msgId, entry);
        }
        rx.afterData(entry);
        if (runtIn) {
            longReadReceiver.onRuntIn(entry);
        }
    }
}
