package org.rpcrdma4j.efa.endpoint;

import java.nio.ByteBuffer;
import org.rpcrdma4j.efa.EfaErrorCode;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.device.RmaIov;
import org.rpcrdma4j.efa.wire.CtsDataFlyweight;
import org.rpcrdma4j.efa.wire.DecodedPacket;
import org.rpcrdma4j.efa.wire.PacketType;
import org.rpcrdma4j.efa.wire.ReadRspFlyweight;
import org.rpcrdma4j.efa.wire.RtrFlyweight;

/**
 * The requester of the emulated read subprotocols (EFA RDM protocol v4 §3.3, tables 3.10 to 3.12): a
 * SHORT_RTR when the read fits one READRSP, else a LONGCTS_RTR whose {@code recv_length} grants the first
 * window, as the provider chooses ({@code efa_rdm_rma_post_efa_emulated_read}). Either way the responder
 * answers with a READRSP carrying the first bytes and, for a long read, CTSDATA after; the requester's CTS
 * packets grant the later windows. The receiving half is a long-CTS receive into the local region
 * ({@link RxSide#startRead}), so {@link LongCtsReceiver} does the rest.
 *
 * <p>The RTR's {@code recv_id} is that receive's id with {@link RxSide#READ_RECV_ID_MARK}; the READRSP
 * carries it back at offset 8 and the responder's own id, for our CTS packets, at offset 12
 * (DISCREPANCIES.md A1). A SHORT_RTR's {@code recv_length} is the read's length (A3).
 *
 * <p>The operation completes when every byte has arrived and the RTR's send has completed, or with the first
 * error: a PEER_ERROR from the responder, or the peer's end.
 */
final class EmulatedRead {

    private final RtrFlyweight rtr = new RtrFlyweight();
    private final ReadRspFlyweight rsp = new ReadRspFlyweight();
    private final ReqHeader header;
    private final RxSide rx;
    private final Counters counters;
    private final int mtu;
    private final int credits;
    private TxSide tx;

    EmulatedRead(ReqHeader header, RxSide rx, Counters counters, int mtu, int credits) {
        this.header = header;
        this.rx = rx;
        this.counters = counters;
        this.mtu = mtu;
        this.credits = credits;
    }

    void txSide(TxSide side) {
        tx = side;
    }

    /** §3.3: a read that fits one READRSP goes SHORT_RTR. */
    static boolean isShort(long length, int mtu) {
        return length < mtu - ReadRspFlyweight.HEADER_LENGTH;
    }

    /**
     * Prepares the receive the responder's packets fill.
     *
     * @return false if the RX entry table is full
     */
    boolean start(TxEntry op, ByteBuffer into) {
        final long window = op.protocol == Protocol.SHORT_RTR ? op.length : Math.min(op.length,
                (long) credits * (mtu - CtsDataFlyweight.HEADER_LENGTH - CtsDataFlyweight.CONNID_HEADER_LENGTH));
        op.readInto = rx.startRead(op, into, window);
        return op.readInto != null;
    }

    /** Builds the RTR, the read's one packet. */
    void build(PacketEntry packet, TxEntry op) {
        final PacketType type = op.protocol == Protocol.SHORT_RTR ? PacketType.SHORT_RTR : PacketType.LONGCTS_RTR;
        packet.length = writeRtr(packet.buffer, type, op.peer, op.remote, op.length, RxSide.wireId(op.readInto),
                op.readInto.windowEnd);
        packet.dataLength = 0;
        op.bytesBuilt = op.length;
        op.reqBuilt = true;
        counters.increment(op.protocol == Protocol.SHORT_RTR ? EndpointCounter.SHORT_RTR_READS
                : EndpointCounter.LONGCTS_RTR_READS);
    }

    /**
     * Writes an RTR (tables 3.10 and 3.12, DISCREPANCIES.md A3: offset 20 is {@code recv_length} in both); the
     * provider sets no remote CQ data on reads.
     *
     * @return the packet length: an RTR carries no data
     */
    int writeRtr(ByteBuffer buffer, PacketType type, Peer peer, RmaIov remote, long msgLength, long recvId,
                 long recvLength) {
        final int length = header.write(buffer, type, remote, peer, false, 0);
        rtr.wrap(buffer, 0).rmaIovCount(1).msgLength(msgLength).recvId(recvId).recvLength(recvLength);
        return length;
    }

    /**
     * The responder's READRSP: the first bytes, and its id for our CTS packets. CTSDATA may overtake it; no
     * CTS is due before it has come, since the first window includes its bytes.
     */
    void onReadRsp(Peer peer, ByteBuffer buffer, DecodedPacket packet) {
        rsp.wrap(buffer, packet.offset());
        final RxEntry entry = rx.readEntry(peer, rsp.recvId());
        if (entry == null) {
            counters.increment(EndpointCounter.ORPHAN_PACKETS);
            return;
        }
        if (!MediumRtm.fits(0, rsp.segLength(), entry.msgLength)) {
            counters.increment(EndpointCounter.MALFORMED_PACKETS);
            return;
        }
        entry.sendId = (int) rsp.sendId();
        counters.add(EndpointCounter.BYTES_COPIED,
                entry.place(0, buffer, packet.payloadOffset(), (int) rsp.segLength()));
        rx.afterData(entry);
    }

    /** The receiving half ended (every byte in, or an error): the read completes once its RTR has too. */
    void onReceived(RxEntry entry) {
        final TxEntry op = entry.readOp;
        if (op.completed) {
            return;
        }
        if (entry.error != EfaErrorCode.SUCCESS && op.error == EfaErrorCode.SUCCESS) {
            op.error = entry.error;
        }
        op.readInto = null;
        tx.finish(op);
    }
}
