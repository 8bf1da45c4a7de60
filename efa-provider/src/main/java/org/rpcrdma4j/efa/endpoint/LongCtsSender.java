package org.rpcrdma4j.efa.endpoint;

import java.nio.ByteBuffer;
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
 * The sending side of the long-CTS message subprotocol (EFA RDM protocol v4 §3.2, tables 3.5
 * to 3.7): a LONGCTS_RTM with the first bytes, then CTSDATA packets, but only within the window
 * each CTS grants. The RTM's {@code send_id} is the TX entry id, by which the receiver's CTS finds
 * the operation again.
 *
 * <p>An emulated long-CTS write and the target of an emulated read send their CTSDATA here too, after
 * their own first packet ({@link LongCtsRtw}, {@link ReadResponder}).
 *
 * <p>After a READ_NACK (§4.7) the RTM carries no data and the {@code REQ_READ_NACK} flag
 * (DISCREPANCIES.md B6): the receiver has the message matched already, and all the data follows
 * in CTSDATA packets, from the end of the runt for a runting-read message.
 *
 * <p>The delivery-complete variant (§4.2), DC_LONGCTS_MSGRTM or DC_LONGCTS_TAGRTM, has the same layout: its
 * {@code send_id} serves the CTS and the RECEIPT alike, and its CTSDATA packets are the usual ones.
 */
final class LongCtsSender {

    private final LongCtsRtmFlyweight rtm = new LongCtsRtmFlyweight();
    private final CtsFlyweight cts = new CtsFlyweight();
    private final CtsDataFlyweight data = new CtsDataFlyweight();
    private final BaseHeaderFlyweight base = new BaseHeaderFlyweight();
    private final ReqHeader header;
    private final EndpointAddress self;
    private final IdTable<TxEntry> txEntries;
    private final Counters counters;
    private final int mtu;
    private final int credits;

    LongCtsSender(ReqHeader header, EndpointAddress self, IdTable<TxEntry> txEntries, Counters counters, int mtu,
                  int credits) {
        this.header = header;
        this.self = self;
        this.txEntries = txEntries;
        this.counters = counters;
        this.mtu = mtu;
        this.credits = credits;
    }

    /** @return whether the operation's data after its REQ goes in CTSDATA packets, in the windows CTS packets grant */
    static boolean sendsCtsData(Protocol protocol) {
        return protocol == Protocol.LONG_CTS || protocol == Protocol.LONGCTS_RTW || protocol == Protocol.READ_RESPONSE;
    }

    /** @return whether the operation has a packet to build now: its RTM, or data inside the window */
    static boolean hasPacketToBuild(TxEntry tx) {
        return !tx.reqBuilt || tx.bytesBuilt < tx.windowEnd;
    }

    /** Builds the RTM if it is not built yet, else the next CTSDATA packet of the window. */
    void build(PacketEntry packet, TxEntry tx) {
        if (tx.reqBuilt) {
            buildData(packet, tx);
        } else {
            buildRtm(packet, tx);
        }
    }

    /**
     * The {@code credit_request} of a long-CTS REQ: the CTSDATA packets the bytes after {@code first} need, at
     * most the configured credits, at least 1.
     */
    long creditRequest(TxEntry tx, int first) {
        final int dataCapacity = mtu - CtsDataFlyweight.HEADER_LENGTH - CtsDataFlyweight.CONNID_HEADER_LENGTH;
        return Math.min(credits, Math.max(1, ((long) tx.length - first + dataCapacity - 1) / dataCapacity));
    }

    /** The receiver granted a window: send up to {@code recv_length} more bytes. */
    TxEntry onCts(Peer peer, ByteBuffer buffer, DecodedPacket packet) {
        cts.wrap(buffer, packet.offset());
        final TxEntry tx = txEntries.get(cts.sendId());
        if (tx == null || tx.peer != peer || !sendsCtsData(tx.protocol) || tx.completed || !tx.reqBuilt) {
            return null;
        }
        tx.recvId = (int) cts.recvId();
        // §3.2: recv_length > 0 was checked by the decoder. It is a u64, which a long holds negative from
        // 2^63 on: compared unsigned, so that no window reaches past the message's end.
        final long left = tx.length - tx.bytesBuilt;
        tx.windowEnd = tx.bytesBuilt + (int) (Long.compareUnsigned(cts.recvLength(), left) < 0 ? cts.recvLength() : left);
        return tx;
    }

    /** @return the REQ type of a long-CTS message (§3.2); the DC variant has the same layout (§4.2) */
    static PacketType rtmType(boolean tagged, boolean deliveryComplete) {
        if (deliveryComplete) {
            return tagged ? PacketType.DC_LONGCTS_TAGRTM : PacketType.DC_LONGCTS_MSGRTM;
        }
        return tagged ? PacketType.LONGCTS_TAGRTM : PacketType.LONGCTS_MSGRTM;
    }

    private void buildRtm(PacketEntry packet, TxEntry tx) {
        final ByteBuffer buffer = packet.buffer;
        final boolean dc = tx.awaitsReceipt();
        final int headerLength = ReqHeader.length(rtmType(tx.tagged, dc), tx.peer, tx.hasCqData);
        // After a READ_NACK the data resumes where the runt, if any, ended; the RTM carries none of it.
        final int first = tx.readNacked ? 0 : Math.min(tx.length, mtu - headerLength);
        final int end = tx.bytesBuilt + first;
        final int at = writeRtmHeader(buffer, tx.peer, tx.tagged, dc, tx.readNacked, tx.msgId, tx.length, tx.id,
                creditRequest(tx, end), tx.tag, tx.hasCqData, tx.cqData);
        buffer.put(at, tx.data, 0, first);
        counters.add(EndpointCounter.BYTES_COPIED, first);
        packet.length = at + first;
        packet.dataLength = first;
        tx.bytesBuilt = end;
        tx.windowEnd = end;
        tx.reqBuilt = true;
        counters.increment(EndpointCounter.LONG_CTS_MESSAGES_SENT);
    }

    /**
     * Writes a long-CTS RTM's headers (table 3.5), marked {@code REQ_READ_NACK} when it follows a READ_NACK.
     *
     * @return the header length: where the first bytes start
     */
    int writeRtmHeader(ByteBuffer buffer, Peer peer, boolean tagged, boolean deliveryComplete, boolean readNacked,
                       int msgId, long msgLength, long sendId, long creditRequest, long tag, boolean hasCqData,
                       long cqData) {
        final int flags = RxSide.categoryFlags(tagged) | (readNacked ? PacketFlags.REQ_READ_NACK_FLAG : 0);
        final int at = header.write(buffer, rtmType(tagged, deliveryComplete), flags, peer, hasCqData, cqData);
        rtm.wrap(buffer, 0).msgId(Integer.toUnsignedLong(msgId)).msgLength(msgLength).sendId(sendId)
                .creditRequest(creditRequest);
        if (tagged) {
            rtm.tag(tag);
        }
        return at;
    }

    void buildData(PacketEntry packet, TxEntry tx) {
        final ByteBuffer buffer = packet.buffer;
        // DISCREPANCIES.md B8: CTSDATA carries the 8-byte connid trailer under the REQ rule.
        final boolean connid = tx.peer.needsConnid();
        final int at = CtsDataFlyweight.HEADER_LENGTH + (connid ? CtsDataFlyweight.CONNID_HEADER_LENGTH : 0);
        final int segment = Math.min(tx.windowEnd - tx.bytesBuilt, mtu - at);
        base.wrap(buffer, 0).type(PacketType.CTSDATA.id()).version(BaseHeaderFlyweight.PROTOCOL_VERSION)
                .flags(connid ? PacketFlags.CONNID_HDR_FLAG : 0);
        data.wrap(buffer, 0).recvId(Integer.toUnsignedLong(tx.recvId)).segLength(segment).segOffset(tx.bytesBuilt);
        if (connid) {
            data.connid(Integer.toUnsignedLong(self.connid())).connidPadding(0);
        }
        buffer.put(at, tx.data, tx.bytesBuilt, segment);
        counters.add(EndpointCounter.BYTES_COPIED, segment);
        packet.length = at + segment;
        packet.dataLength = segment;
        tx.bytesBuilt += segment;
    }
}
