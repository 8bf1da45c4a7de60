package org.rpcrdma4j.efa.endpoint;

import java.nio.ByteBuffer;
import org.rpcrdma4j.efa.AtomicDatatype;
import org.rpcrdma4j.efa.AtomicOp;
import org.rpcrdma4j.efa.EndpointAddress;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.wire.AtomRspFlyweight;
import org.rpcrdma4j.efa.wire.DecodedPacket;
import org.rpcrdma4j.efa.wire.PacketFlags;
import org.rpcrdma4j.efa.wire.PacketType;
import org.rpcrdma4j.efa.wire.RmaIovFlyweight;
import org.rpcrdma4j.efa.wire.RtaFlyweight;

/**
 * The initiator of the emulated atomic subprotocols (EFA RDM protocol v4 §3.3 "Emulated atomic protocols",
 * tables 3.13 to 3.15), as the provider's {@code efa_rdm_pke_init_rta_common} builds them: one RTA packet with
 * {@code REQ_ATOMIC}, the operation's msg_id (RTAs take their turn with the peer's messages, FI_ORDER_SAS), one
 * {@code rma_iov} entry and the operands, so the whole operation fits one packet ({@link #maxBytes}).
 *
 * <ul>
 *   <li>WRITE_RTA ({@code fi_atomic}) names no operation of ours: it completes when its send does, transmit
 *       complete, as the provider's ({@code efa_rdm_pke_handle_write_rta_send_completion}). Its delivery-complete
 *       variant (§4.2, {@code efa_rdm_pke_init_dc_write_rta}) differs in its type only, DC_WRITE_RTA with our TX
 *       entry's id as {@code send_id} where WRITE_RTA has padding, and completes on the target's RECEIPT
 *       ({@link Receipts}), or with a PEER_ERROR naming it.</li>
 *   <li>FETCH_RTA ({@code fi_fetch_atomic}) and COMPARE_RTA ({@code fi_compare_atomic}, the compare operand after
 *       the operand) carry our TX entry's id as {@code recv_id}; the target answers with an ATOMRSP carrying it and
 *       the elements before the operation, which go into the result buffer. The operation completes when both the
 *       ATOMRSP and the RTA's send completion are in, or with a PEER_ERROR naming it, or with the peer's end.</li>
 * </ul>
 * Remote CQ data is not offered: the provider's targets write no completion for an atomic
 * ({@code efa_rdm_pke_proc_write_rta}), so the data would go nowhere.
 */
final class EmulatedAtomic {

    /** The provider's {@code EFA_RDM_IOV_LIMIT}: the rma_iov entries its size rule leaves room for. */
    private static final int RMA_IOV_LIMIT = 4;

    private final RtaFlyweight rta = new RtaFlyweight();
    private final AtomRspFlyweight rsp = new AtomRspFlyweight();
    private final ReqHeader header;
    private final IdTable<TxEntry> entries;
    private final Counters counters;
    private TxSide tx;

    EmulatedAtomic(ReqHeader header, IdTable<TxEntry> entries, Counters counters) {
        this.header = header;
        this.entries = entries;
        this.counters = counters;
    }

    void txSide(TxSide side) {
        tx = side;
    }

    /**
     * The provider's limit on an atomic's operand ({@code efa_rdm_atomic_query}, {@code fi_atomicvalid}): the
     * MTU less an RTA header, a raw address and four {@code fi_rma_iov} (24 bytes, as {@code efa_rma_iov}); half
     * of it for a compare atomic, whose packet carries two operands. Whatever optional headers the packet gets,
     * it fits.
     *
     * @return the most bytes one operand of {@code op} may have
     */
    static int maxBytes(int mtu, AtomicOp op) {
        final int room = mtu - RtaFlyweight.HEADER_LENGTH - EndpointAddress.LENGTH
                - RMA_IOV_LIMIT * RmaIovFlyweight.LENGTH;
        return op.isCompare() ? room / 2 : room;
    }

    /** @return the most elements one atomic of {@code op} on {@code type} may have */
    static int maxCount(int mtu, AtomicDatatype type, AtomicOp op) {
        return maxBytes(mtu, op) / type.size();
    }

    /** Builds the RTA, the operation's one packet: header, operand (zeros for an ATOMIC_READ without one), compare. */
    void build(PacketEntry packet, TxEntry op) {
        final ByteBuffer buffer = packet.buffer;
        final PacketType type = switch (op.protocol) {
            case WRITE_RTA -> op.awaitsReceipt() ? PacketType.DC_WRITE_RTA : PacketType.WRITE_RTA;
            case FETCH_RTA -> PacketType.FETCH_RTA;
            case COMPARE_RTA -> PacketType.COMPARE_RTA;
            default -> throw new IllegalStateException(op.protocol + " is no atomic");
        };
        final int at = header.write(buffer, type, PacketFlags.REQ_ATOMIC_FLAG, op.remote, op.peer, false, 0);
        rta.wrap(buffer, 0).msgId(Integer.toUnsignedLong(op.msgId)).rmaIovCount(1)
                .atomicDatatype(op.datatype.value()).atomicOp(op.atomicOp.value());
        if (type == PacketType.DC_WRITE_RTA) {
            rta.sendId(op.id);
        } else if (type != PacketType.WRITE_RTA) {
            rta.recvId(op.id);
        }
        if (op.data != null) {
            buffer.put(at, op.data, 0, op.length);
        } else {
            for (int i = 0; i < op.length; i++) {
                buffer.put(at + i, (byte) 0);
            }
        }
        int payload = op.length;
        if (op.compare != null) {
            buffer.put(at + payload, op.compare, 0, op.length);
            payload += op.length;
        }
        counters.add(EndpointCounter.BYTES_COPIED, payload);
        packet.length = at + payload;
        packet.dataLength = payload;
        op.bytesBuilt = op.length;
        op.reqBuilt = true;
        counters.increment(switch (type) {
            case WRITE_RTA, DC_WRITE_RTA -> EndpointCounter.WRITE_RTA_ATOMICS;
            case FETCH_RTA -> EndpointCounter.FETCH_RTA_ATOMICS;
            default -> EndpointCounter.COMPARE_RTA_ATOMICS;
        });
    }

    /**
     * The target's ATOMRSP: the elements before the operation, exactly as many bytes as the operation has, go into
     * the result buffer; one that names no fetch or compare of that peer awaiting its answer is an orphan, one of
     * another length malformed, and both are dropped.
     */
    void onAtomRsp(Peer peer, ByteBuffer buffer, DecodedPacket packet) {
        rsp.wrap(buffer, packet.offset());
        final TxEntry op = entries.get(rsp.recvId());
        if (op == null || op.peer != peer || op.completed || !op.awaitingResponse) {
            counters.increment(EndpointCounter.ORPHAN_PACKETS);
            return;
        }
        if (rsp.segLength() != op.length) {
            counters.increment(EndpointCounter.MALFORMED_PACKETS);
            return;
        }
        op.result.put(0, buffer, packet.payloadOffset(), op.length);
        counters.add(EndpointCounter.BYTES_COPIED, op.length);
        op.awaitingResponse = false;
        tx.finish(op);
    }
}
