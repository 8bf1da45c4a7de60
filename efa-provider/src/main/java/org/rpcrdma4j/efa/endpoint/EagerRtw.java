package org.rpcrdma4j.efa.endpoint;

import java.nio.ByteBuffer;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.wire.DcEagerRtwFlyweight;
import org.rpcrdma4j.efa.wire.DecodedPacket;
import org.rpcrdma4j.efa.wire.EagerRtwFlyweight;
import org.rpcrdma4j.efa.wire.PacketType;

/**
 * The emulated eager write subprotocol (EFA RDM protocol v4 §3.3, table 3.8): one EAGER_RTW carries the
 * target's {@code rma_iov} and all the data. It has no id, so the initiator completes the write when the
 * packet is delivered, as the provider does; the target places the data if its registration admits the
 * write and the data fills the {@code rma_iov} exactly, and reports it only with remote CQ data.
 *
 * <p>The delivery-complete variant (§4.2), DC_EAGER_RTW, adds the {@code send_id} the target's RECEIPT names
 * once the data is in place; a refusal can then be reported by it too ({@link RmaAccess}). Its header is 8 bytes
 * longer, so its largest write is 8 bytes smaller.
 *
 * <p>A 0-byte EAGER_RTW without an {@code rma_iov} is a peer asking for our HANDSHAKE ({@link Handshake}).
 */
final class EagerRtw {

    private final EagerRtwFlyweight rtw = new EagerRtwFlyweight();
    private final DcEagerRtwFlyweight dcRtw = new DcEagerRtwFlyweight();
    private final ReqHeader header;
    private final RmaAccess access;
    private final RxSide rx;
    private final Counters counters;

    EagerRtw(ReqHeader header, RmaAccess access, RxSide rx, Counters counters) {
        this.header = header;
        this.access = access;
        this.rx = rx;
        this.counters = counters;
    }

    /** @return the REQ type of an eager write (§3.3, §4.2) */
    static PacketType type(boolean deliveryComplete) {
        return deliveryComplete ? PacketType.DC_EAGER_RTW : PacketType.EAGER_RTW;
    }

    /** Builds the one packet of an eager write. */
    void build(PacketEntry packet, TxEntry tx) {
        final ByteBuffer buffer = packet.buffer;
        final boolean dc = tx.awaitsReceipt();
        final int at = header.write(buffer, type(dc), tx.remote, tx.peer, tx.hasCqData, tx.cqData);
        if (dc) {
            dcRtw.wrap(buffer, 0).rmaIovCount(1).sendId(tx.id);
        } else {
            rtw.wrap(buffer, 0).rmaIovCount(1);
        }
        buffer.put(at, tx.data, 0, tx.length);
        counters.add(EndpointCounter.BYTES_COPIED, tx.length);
        packet.length = at + tx.length;
        packet.dataLength = tx.length;
        tx.bytesBuilt = tx.length;
        tx.reqBuilt = true;
        counters.increment(EndpointCounter.EAGER_RTW_WRITES);
    }

    /** An EAGER_RTW with an rma_iov, or a DC_EAGER_RTW, arrived: write it where it says, if it may. */
    void onReceived(Peer peer, ByteBuffer buffer, DecodedPacket packet) {
        final boolean dc = Receipts.requested(packet.type());
        final long sendId = dc ? dcRtw.wrap(buffer, packet.offset()).sendId() : -1;
        final ByteBuffer memory = access.target(peer, buffer, packet, RmaAccess.REMOTE_WRITE, sendId);
        if (memory == null) {
            return;
        }
        if (memory.capacity() != packet.payloadLength()) {
            // The provider refuses a size mismatch too (FI_EFA_ERR_RTM_MISMATCH), before copying.
            access.refuse(peer, sendId);
            return;
        }
        final RxEntry entry = rx.startWriteTarget(peer, Protocol.EAGER_RTW, memory, buffer, packet);
        if (entry == null) {
            access.refuse(peer, sendId);
            return;
        }
        entry.sendId = (int) sendId;
        counters.increment(EndpointCounter.EMULATED_WRITES_SERVED);
        counters.add(EndpointCounter.BYTES_COPIED, entry.place(0, buffer, packet.payloadOffset(), packet.payloadLength()));
        rx.afterData(entry);
    }
}
