package org.rpcrdma4j.efa.endpoint;

import java.nio.ByteBuffer;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.wire.DcEagerRtmFlyweight;
import org.rpcrdma4j.efa.wire.DecodedPacket;
import org.rpcrdma4j.efa.wire.EagerRtmFlyweight;
import org.rpcrdma4j.efa.wire.PacketType;

/**
 * The eager message subprotocol (EFA RDM protocol v4 §3.2, table 3.3): one EAGER_MSGRTM or
 * EAGER_TAGRTM packet carries the whole message. The data length is not on the wire: it is the
 * packet length minus the headers (eager tip 5).
 *
 * <p>Its delivery-complete variant (§4.2), DC_EAGER_MSGRTM or DC_EAGER_TAGRTM, adds the {@code send_id}
 * the receiver's RECEIPT names, and 8 bytes to the header, so that its largest message is 8 bytes smaller.
 */
final class EagerRtm {

    private final EagerRtmFlyweight rtm = new EagerRtmFlyweight();
    private final DcEagerRtmFlyweight dcRtm = new DcEagerRtmFlyweight();
    private final ReqHeader header;
    private final RxSide rx;
    private final Counters counters;

    EagerRtm(ReqHeader header, RxSide rx, Counters counters) {
        this.header = header;
        this.rx = rx;
        this.counters = counters;
    }

    /** @return the REQ type of an eager message, as libfabric's {@code efa_rdm_msg_select_rtm} picks it */
    static PacketType type(boolean tagged, boolean deliveryComplete) {
        if (deliveryComplete) {
            return tagged ? PacketType.DC_EAGER_TAGRTM : PacketType.DC_EAGER_MSGRTM;
        }
        return tagged ? PacketType.EAGER_TAGRTM : PacketType.EAGER_MSGRTM;
    }

    /** Builds the one packet of an eager message. */
    void build(PacketEntry packet, TxEntry tx) {
        final boolean dc = tx.awaitsReceipt();
        final ByteBuffer buffer = packet.buffer;
        final int at = header.write(buffer, type(tx.tagged, dc), RxSide.categoryFlags(tx.tagged), tx.peer,
                tx.hasCqData, tx.cqData);
        if (dc) {
            dcRtm.wrap(buffer, 0).msgId(Integer.toUnsignedLong(tx.msgId)).sendId(tx.id);
            if (tx.tagged) {
                dcRtm.tag(tx.tag);
            }
        } else {
            rtm.wrap(buffer, 0).msgId(Integer.toUnsignedLong(tx.msgId));
            if (tx.tagged) {
                rtm.tag(tx.tag);
            }
        }
        buffer.put(at, tx.data, 0, tx.length);
        counters.add(EndpointCounter.BYTES_COPIED, tx.length);
        packet.length = at + tx.length;
        packet.dataLength = tx.length;
        tx.bytesBuilt = tx.length;
        tx.reqBuilt = true;
    }

    /** An EAGER_RTM or DC_EAGER_RTM is next in msg_id order: match it and place its data. */
    void onReceived(Peer peer, ByteBuffer buffer, DecodedPacket packet) {
        final boolean tagged = packet.type().isTagged();
        final boolean dc = Receipts.requested(packet.type());
        final int msgId;
        final long tag;
        if (dc) {
            dcRtm.wrap(buffer, packet.offset());
            msgId = (int) dcRtm.msgId();
            tag = tagged ? dcRtm.tag() : 0;
        } else {
            rtm.wrap(buffer, packet.offset());
            msgId = (int) rtm.msgId();
            tag = tagged ? rtm.tag() : 0;
        }
        final RxEntry entry = rx.arrive(peer, Protocol.EAGER, buffer, packet, msgId, tag, packet.payloadLength(),
                packet.payloadLength());
        if (entry == null) {
            return;
        }
        if (dc) {
            entry.sendId = (int) dcRtm.sendId();
        }
        counters.add(EndpointCounter.BYTES_COPIED, entry.place(0, buffer, packet.payloadOffset(), packet.payloadLength()));
        rx.afterData(entry);
    }
}
