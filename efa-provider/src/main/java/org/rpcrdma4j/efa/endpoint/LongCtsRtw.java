package org.rpcrdma4j.efa.endpoint;

import java.nio.ByteBuffer;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.device.RmaIov;
import org.rpcrdma4j.efa.wire.DecodedPacket;
import org.rpcrdma4j.efa.wire.LongCtsRtwFlyweight;
import org.rpcrdma4j.efa.wire.PacketType;

/**
 * The emulated long-CTS write subprotocol (EFA RDM protocol v4 §3.3, table 3.9): a LONGCTS_RTW with the
 * target's {@code rma_iov} and as many first bytes as fit, then the long-CTS flow of §3.2 with the target as
 * receiver. This class builds the RTW and starts the target's receive; {@link LongCtsSender} and
 * {@link LongCtsReceiver} run the CTS and CTSDATA packets after, as for a message.
 *
 * <p>The delivery-complete variant (§4.2), DC_LONGCTS_RTW, has the same layout; its target answers a RECEIPT
 * once the last byte is in place.
 *
 * <p>The target checks the whole {@code rma_iov} before it places a byte; a refusal is reported to the
 * initiator by the RTW's {@code send_id} ({@link RmaAccess}). The RTW's data must be less than the write,
 * as the provider requires (otherwise the write is eager).
 */
final class LongCtsRtw {

    private final LongCtsRtwFlyweight rtw = new LongCtsRtwFlyweight();
    private final ReqHeader header;
    private final LongCtsSender sender;
    private final RmaAccess access;
    private final RxSide rx;
    private final Counters counters;
    private final int mtu;

    LongCtsRtw(ReqHeader header, LongCtsSender sender, RmaAccess access, RxSide rx, Counters counters, int mtu) {
        this.header = header;
        this.sender = sender;
        this.access = access;
        this.rx = rx;
        this.counters = counters;
        this.mtu = mtu;
    }

    /** Builds the RTW if it is not built yet, else the next CTSDATA packet of the window. */
    void build(PacketEntry packet, TxEntry tx) {
        if (tx.reqBuilt) {
            sender.buildData(packet, tx);
            return;
        }
        final ByteBuffer buffer = packet.buffer;
        final PacketType type = type(tx.awaitsReceipt());
        final int first = Math.min(tx.length, mtu - ReqHeader.length(type, 1, tx.peer, tx.hasCqData));
        final int at = writeHeader(buffer, type, tx.peer, tx.remote, tx.length, tx.id, sender.creditRequest(tx, first),
                tx.hasCqData, tx.cqData);
        buffer.put(at, tx.data, 0, first);
        counters.add(EndpointCounter.BYTES_COPIED, first);
        packet.length = at + first;
        packet.dataLength = first;
        tx.bytesBuilt = first;
        tx.windowEnd = first;
        tx.reqBuilt = true;
        counters.increment(EndpointCounter.LONGCTS_RTW_WRITES);
    }

    /** @return the REQ type of a long-CTS write (§3.3); the DC variant has the same layout (§4.2) */
    static PacketType type(boolean deliveryComplete) {
        return deliveryComplete ? PacketType.DC_LONGCTS_RTW : PacketType.LONGCTS_RTW;
    }

    /**
     * Writes a LONGCTS_RTW's or DC_LONGCTS_RTW's headers (table 3.9) with one rma_iov entry.
     *
     * @return the header length: where the data starts
     */
    int writeHeader(ByteBuffer buffer, PacketType type, Peer peer, RmaIov remote, long msgLength, long sendId,
                    long creditRequest, boolean hasCqData, long cqData) {
        final int at = header.write(buffer, type, remote, peer, hasCqData, cqData);
        rtw.wrap(buffer, 0).rmaIovCount(1).msgLength(msgLength).sendId(sendId).creditRequest(creditRequest);
        return at;
    }

    /** A LONGCTS_RTW or DC_LONGCTS_RTW arrived: check it, place its first bytes and grant the first window. */
    void onReceived(Peer peer, ByteBuffer buffer, DecodedPacket packet) {
        rtw.wrap(buffer, packet.offset());
        final long sendId = rtw.sendId();
        final ByteBuffer memory = access.target(peer, buffer, packet, RmaAccess.REMOTE_WRITE, sendId);
        if (memory == null) {
            return;
        }
        if (packet.payloadLength() >= memory.capacity() || rtw.msgLength() != memory.capacity()) {
            access.refuse(peer, sendId);
            return;
        }
        final RxEntry entry = rx.startWriteTarget(peer, Protocol.LONG_CTS, memory, buffer, packet);
        if (entry == null) {
            access.refuse(peer, sendId);
            return;
        }
        counters.increment(EndpointCounter.EMULATED_WRITES_SERVED);
        entry.sendId = (int) sendId;
        entry.creditRequest = rtw.creditRequest();
        counters.add(EndpointCounter.BYTES_COPIED, entry.place(0, buffer, packet.payloadOffset(), packet.payloadLength()));
        entry.windowEnd = entry.bytesReceived;
        rx.afterData(entry);
    }
}
