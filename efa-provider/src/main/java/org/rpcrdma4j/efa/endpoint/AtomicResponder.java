package org.rpcrdma4j.efa.endpoint;

import java.nio.ByteBuffer;
import java.util.Set;
import org.rpcrdma4j.efa.AtomicDatatype;
import org.rpcrdma4j.efa.AtomicOp;
import org.rpcrdma4j.efa.CompletionEntry;
import org.rpcrdma4j.efa.EndpointAddress;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.wire.AtomRspFlyweight;
import org.rpcrdma4j.efa.wire.BaseHeaderFlyweight;
import org.rpcrdma4j.efa.wire.DecodedPacket;
import org.rpcrdma4j.efa.wire.PacketFlags;
import org.rpcrdma4j.efa.wire.PacketType;
import org.rpcrdma4j.efa.wire.RtaFlyweight;

/**
 * The target of the emulated atomic subprotocols (EFA RDM protocol v4 §3.3, tables 3.13 to 3.15), as the
 * provider's {@code efa_rdm_pke_proc_write_rta}, {@code _fetch_rta} and {@code _compare_rta}: an RTA whose msg_id
 * has had its turn ({@link PacketDispatcher}) is checked, applied to the memory it names
 * ({@link AtomicArithmetic}) and, for a fetch or compare, answered with an ATOMRSP carrying the elements as they
 * were.
 *
 * <p>Checks, all before a byte is touched, each failure a refusal ({@link RmaAccess#refuse}, a PEER_ERROR for the
 * {@code recv_id} of a fetch or compare): a datatype and operation this endpoint serves for the packet type
 * ({@link AtomicOp#isWrite()}, {@link AtomicOp#isFetch()}, {@link AtomicOp#isCompare()}); one {@code rma_iov} entry
 * naming bytes of a registration with the rights the operation needs, remote write for a write atomic, remote read
 * and write for a fetch or compare (remote read alone for ATOMIC_READ), as fi_mr(3) defines them; a whole, non-zero
 * number of elements; operands exactly as long as the {@code rma_iov} (twice that for a compare). The provider
 * checks only remote read for a fetch or compare, and goes on when the check fails
 * ({@code efa_rdm_pke_alloc_rta_rxe} ignores the result of {@code efa_rdm_rma_verified_copy_iov}).
 *
 * <p>The answer to a fetch or compare is a TX entry of the endpoint's own ({@link TxEntry#internal}), reserved
 * before the memory is touched, so that one the endpoint has no room for (a full TX table, or the peer at
 * {@code sendsPerPeer}) is refused rather than applied unanswered. Its bytes are a copy of the elements before the
 * operation, held until its packet has been sent, since the memory may change again before the packet goes.
 *
 * <p>A DC_WRITE_RTA (§4.2, {@code efa_rdm_pke_proc_dc_write_rta}) is applied as a WRITE_RTA and answered with a
 * RECEIPT naming its {@code send_id}, through a write target's RX entry ({@link RxSide#startWriteTarget}) reserved
 * before the memory is touched, as the answer above is: one the endpoint has no room for is refused, never applied
 * unconfirmed. The RECEIPT repeats the RTA's {@code msg_id}; the provider's carries whatever its freshly taken
 * RX entry held ({@code efa_rdm_ep_alloc_rxe} does not set it) and its initiator reads only {@code tx_id}. Its
 * {@code send_id} names the operation, so a refusal is reported by PEER_ERROR, as a fetch's is.
 */
final class AtomicResponder {

    private final RtaFlyweight rta = new RtaFlyweight();
    private final AtomRspFlyweight rsp = new AtomRspFlyweight();
    private final BaseHeaderFlyweight base = new BaseHeaderFlyweight();
    private final RmaAccess access;
    private final RxSide rx;
    private final EndpointAddress self;
    private final Counters counters;
    private final int sendsPerPeer;
    private TxSide tx;

    AtomicResponder(RmaAccess access, RxSide rx, EndpointAddress self, Counters counters, int sendsPerPeer) {
        this.access = access;
        this.rx = rx;
        this.self = self;
        this.counters = counters;
        this.sendsPerPeer = sendsPerPeer;
    }

    void txSide(TxSide side) {
        tx = side;
    }

    /**
     * A WRITE_RTA, DC_WRITE_RTA, FETCH_RTA or COMPARE_RTA had its turn: apply it if it may be, and answer a DC
     * write, a fetch or a compare.
     */
    void onRta(Peer peer, ByteBuffer buffer, DecodedPacket packet) {
        rta.wrap(buffer, packet.offset());
        final PacketType type = packet.type();
        // The initiator's operation the RTA names, at offset 20 in each but WRITE_RTA.
        final long recvId = type == PacketType.WRITE_RTA ? -1 : rta.recvId();
        final AtomicDatatype datatype = AtomicDatatype.fromValue(rta.atomicDatatype());
        final AtomicOp op = AtomicOp.fromValue(rta.atomicOp());
        if (datatype == null || op == null || !admits(type, op)) {
            access.refuse(peer, recvId);
            return;
        }
        final ByteBuffer memory = access.target(peer, buffer, packet, rights(type, op), recvId);
        if (memory == null) {
            return;
        }
        final int length = memory.capacity();
        final long operands = type == PacketType.COMPARE_RTA ? 2L * length : length;
        if (length == 0 || length % datatype.size() != 0 || packet.payloadLength() != operands) {
            access.refuse(peer, recvId);
            return;
        }
        final ByteBuffer operand = buffer.slice(packet.payloadOffset(), length);
        final ByteBuffer compare = type == PacketType.COMPARE_RTA
                ? buffer.slice(packet.payloadOffset() + length, length) : null;
        if (type == PacketType.WRITE_RTA) {
            AtomicArithmetic.apply(datatype, op, memory, operand, null, null);
            counters.increment(EndpointCounter.EMULATED_ATOMICS_SERVED);
            return;
        }
        if (type == PacketType.DC_WRITE_RTA) {
            final RxEntry receipt = rx.startWriteTarget(peer, Protocol.WRITE_RTA, memory, buffer, packet);
            if (receipt == null) {
                access.refuse(peer, recvId);
                return;
            }
            receipt.sendId = (int) recvId;
            receipt.msgId = (int) rta.msgId();
            AtomicArithmetic.apply(datatype, op, memory, operand, null, null);
            counters.increment(EndpointCounter.EMULATED_ATOMICS_SERVED);
            rx.complete(receipt);
            return;
        }
        final TxEntry answer = new TxEntry();
        answer.peer = peer;
        answer.kind = type == PacketType.FETCH_RTA ? CompletionEntry.Kind.FETCH_ATOMIC
                : CompletionEntry.Kind.COMPARE_ATOMIC;
        answer.protocol = Protocol.ATOMIC_RESPONSE;
        answer.internal = true;
        answer.length = length;
        answer.recvId = (int) recvId;
        // A peer's answers owed count with our operations towards it (EndpointLimits.sendsPerPeer).
        if (peer.txEntries >= sendsPerPeer || !tx.register(answer)) {
            access.refuse(peer, recvId);
            return;
        }
        answer.data = ByteBuffer.allocate(length);
        AtomicArithmetic.apply(datatype, op, memory, operand, compare, answer.data);
        counters.increment(EndpointCounter.EMULATED_ATOMICS_SERVED);
        tx.start(answer);
    }

    /** Builds the ATOMRSP as the provider does ({@code efa_rdm_pke_init_atomrsp}): our connid always present. */
    void build(PacketEntry packet, TxEntry answer) {
        final ByteBuffer buffer = packet.buffer;
        base.wrap(buffer, 0).type(PacketType.ATOMRSP.id()).version(BaseHeaderFlyweight.PROTOCOL_VERSION)
                .flags(PacketFlags.CONNID_HDR_FLAG);
        rsp.wrap(buffer, 0).connid(Integer.toUnsignedLong(self.connid())).reserved(0)
                .recvId(Integer.toUnsignedLong(answer.recvId)).segLength(answer.length);
        buffer.put(AtomRspFlyweight.HEADER_LENGTH, answer.data, 0, answer.length);
        counters.add(EndpointCounter.BYTES_COPIED, answer.length);
        packet.length = AtomRspFlyweight.HEADER_LENGTH + answer.length;
        packet.dataLength = answer.length;
        answer.bytesBuilt = answer.length;
        answer.reqBuilt = true;
    }

    private static boolean admits(PacketType type, AtomicOp op) {
        return switch (type) {
            case WRITE_RTA, DC_WRITE_RTA -> op.isWrite();
            case FETCH_RTA -> op.isFetch();
            case COMPARE_RTA -> op.isCompare();
            default -> false;
        };
    }

    private static Set<Access> rights(PacketType type, AtomicOp op) {
        if (type == PacketType.WRITE_RTA || type == PacketType.DC_WRITE_RTA) {
            return RmaAccess.REMOTE_WRITE;
        }
        return op == AtomicOp.ATOMIC_READ ? RmaAccess.REMOTE_READ : RmaAccess.REMOTE_READ_WRITE;
    }
}
