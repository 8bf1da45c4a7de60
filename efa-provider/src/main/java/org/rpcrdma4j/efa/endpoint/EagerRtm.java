package org.rpcrdma4j.efa.endpoint;

import java.nio.ByteBuffer;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.wire.DecodedPacket;
import org.rpcrdma4j.efa.wire.EagerRtmFlyweight;
import org.rpcrdma4j.efa.wire.PacketType;

/**
 * The eager message subprotocol (EFA RDM protocol v4 §3.2, table 3.3): one EAGER_MSGRTM or
 * EAGER_TAGRTM packet carries the whole message. The data length is not on the wire: it is the
 * packet length minus the headers (eager tip 5).
 */
final class EagerRtm {

    private final EagerRtmFlyweight rtm = new EagerRtmFlyweight();
    private final ReqHeader header;
    private final RxSide rx;
    private final Counters counters;

    EagerRtm(ReqHeader header, RxSide rx, Counters counters) {
        this.header = header;
        this.rx = rx;
        this.counters = counters;
    }

    /** Builds the one packet of an eager message. */
    void build(PacketEntry packet, TxEntry tx) {
        final PacketType type = tx.tagged ? PacketType.EAGER_TAGRTM : PacketType.EAGER_MSGRTM;
        final ByteBuffer buffer = packet.buffer;
        final int at = header.write(buffer, type, RxSide.categoryFlags(tx.tagged), tx.peer, tx.hasCqData, tx.cqData);
        rtm.wrap(buffer, 0).msgId(Integer.toUnsignedLong(tx.msgId));
        if (tx.tagged) {
            rtm.tag(tx.tag);
        }
        buffer.put(at, tx.data, 0, tx.length);
        counters.add(EndpointCounter.BYTES_COPIED, tx.length);
        packet.length = at + tx.length;
        packet.dataLength = tx.length;
        tx.bytesBuilt = tx.length;
        tx.reqBuilt = true;
    }

    /** An EAGER_RTM is next in msg_id order: match it and place its data. */
    void onReceived(Peer peer, ByteBuffer buffer, DecodedPacket packet) {
        rtm.wrap(buffer, packet.offset());
        final boolean tagged = packet.type().isTagged();
        final RxEntry entry = rx.arrive(peer, Protocol.EAGER, buffer, packet, (int) rtm.msgId(),
                tagged ? rtm.tag() : 0, packet.payloadLength(), packet.payloadLength());
        if (entry == null) {
            return;
        }
        counters.add(EndpointCounter.BYTES_COPIED, entry.place(0, buffer, packet.payloadOffset(), packet.payloadLength()));
        rx.afterData(entry);
    }
}
