package org.rpcrdma4j.efa.endpoint;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import org.rpcrdma4j.efa.EfaErrorCode;
import org.rpcrdma4j.efa.EndpointAddress;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.device.CompletionStatus;
import org.rpcrdma4j.efa.wire.BaseHeaderFlyweight;
import org.rpcrdma4j.efa.wire.DecodedPacket;
import org.rpcrdma4j.efa.wire.ExtraFeature;
import org.rpcrdma4j.efa.wire.PacketFlags;
import org.rpcrdma4j.efa.wire.PacketType;
import org.rpcrdma4j.efa.wire.PeerErrorFlyweight;

/**
 * The PEER_ERROR packet (type 12, extra feature 9, DISCREPANCIES.md B7; libfabric main after v2.6.0), by
 * which a target tells an initiator that an operation it started has failed there.
 *
 * <p>Sent, always with {@code ref_kind} OPE_INDEX and only to a peer whose handshake announced feature 9: for
 * an emulated RMA request this endpoint refused ({@link RmaAccess}), {@code op_id} the initiator's operation
 * the request named and {@code prov_errno} {@link CompletionStatus#REMOTE_ERROR_BAD_ADDRESS}, the status a
 * device gives a refused RDMA access; and instead of the EOR of a long-read or runting-read message or a
 * long-read write whose RDMA read failed here ({@link LongReadReceiver}), {@code op_id} its {@code send_id} and
 * {@code prov_errno} the read's status. libfabric's provider sends it only for the latter, and only when the
 * status is REMOTE_ERROR_BAD_ADDRESS (the sender's memory refused the read, {@code efa_rdm_rxe_emit_peer_error});
 * after any other status its sender is never told.
 *
 * <p>Received: an OPE_INDEX that names one of this endpoint's operations with that peer in progress ends
 * it with the error the packet carries (EfaErrorCode numbers follow the device's statuses); libfabric's
 * provider ends it with {@code FI_ECANCELED}. A MSG_ID, by which a libfabric sender aborts a medium or
 * runting-read message it had started, ends the receive that took its first bytes; a MSG_ID_SKIP, for a
 * message aborted before any byte, takes its msg_id's turn in the reorder window ({@link PacketDispatcher}).
 * This endpoint sends neither: it never aborts a message it started.
 *
 * <p>A PEER_ERROR that finds no packet buffer waits on a list and is built at a later progress.
 */
final class PeerErrors {

    private record Owed(Peer peer, long opId, long provErrno) {
    }

    private final PeerErrorFlyweight header = new PeerErrorFlyweight();
    private final BaseHeaderFlyweight base = new BaseHeaderFlyweight();
    private final ArrayDeque<Owed> owed = new ArrayDeque<>();
    private final PacketPool packets;
    private final TxQueue txQueue;
    private final EndpointAddress self;
    private final Counters counters;
    private TxSide tx;
    private RxSide rx;

    PeerErrors(PacketPool packets, TxQueue txQueue, EndpointAddress self, Counters counters) {
        this.packets = packets;
        this.txQueue = txQueue;
        this.self = self;
        this.counters = counters;
    }

    void sides(TxSide txSide, RxSide rxSide) {
        tx = txSide;
        rx = rxSide;
    }

    /** Tells the peer its request {@code opId} was refused here, if its handshake admits PEER_ERROR. */
    void report(Peer peer, long opId) {
        report(peer, opId, CompletionStatus.REMOTE_ERROR_BAD_ADDRESS.value());
    }

    /**
     * Tells the peer its operation {@code opId} failed here with {@code provErrno}, a device status, if its
     * handshake admits PEER_ERROR.
     */
    void report(Peer peer, long opId, long provErrno) {
        if (peer.has(ExtraFeature.PEER_ERROR)) {
            owed.add(new Owed(peer, opId, provErrno));
            progress();
        }
    }

    /** A PEER_ERROR arrived: end the operation it names, if it is one of ours with that peer. */
    void onReceived(Peer peer, ByteBuffer buffer, DecodedPacket packet) {
        header.wrap(buffer, packet.offset());
        final EfaErrorCode error = error(header.provErrno());
        if (header.refKind() == PeerErrorFlyweight.REF_MSG_ID) {
            onMessageAborted(peer, (int) header.opId());
            return;
        }
        if (header.refKind() != PeerErrorFlyweight.REF_OPE_INDEX) {
            counters.increment(EndpointCounter.MALFORMED_PACKETS);
            return;
        }
        final RxEntry read = rx.readEntry(peer, header.opId());
        final TxEntry op = read != null ? read.readOp : tx.awaitingPeer(peer, header.opId());
        if (op == null || op.completed) {
            counters.increment(EndpointCounter.ORPHAN_PACKETS);
            return;
        }
        counters.increment(EndpointCounter.PEER_ERRORS_RECEIVED);
        if (read != null) {
            read.error = error;
            rx.complete(read);
        } else {
            tx.abort(op, error);
        }
    }

    /**
     * MSG_ID: the sender aborted a medium or runting-read message whose first bytes a receive took; the
     * receive ends with {@link EfaErrorCode#CANCELED}, as the provider's ({@code FI_ECANCELED}), once no read
     * of it is on the device. One not matched yet stays, to be dropped with its peer.
     */
    private void onMessageAborted(Peer peer, int msgId) {
        final RxEntry entry = peer.mediumInProgress.get(msgId);
        if (entry == null || !entry.isMatched()) {
            counters.increment(EndpointCounter.ORPHAN_PACKETS);
            return;
        }
        counters.increment(EndpointCounter.PEER_ERRORS_RECEIVED);
        rx.abort(entry, EfaErrorCode.CANCELED);
    }

    /** Drops the PEER_ERRORs owed to a peer that is no longer active. */
    void forget(Peer peer) {
        owed.removeIf(o -> o.peer() == peer);
    }

    /** Forgets every PEER_ERROR owed: the endpoint is closing. */
    void clear() {
        owed.clear();
    }

    boolean idle() {
        return owed.isEmpty();
    }

    /** @return how many PEER_ERROR packets went out */
    int progress() {
        int sent = 0;
        while (!owed.isEmpty()) {
            final PacketEntry packet = packets.acquire();
            if (packet == null) {
                break;
            }
            final Owed o = owed.poll();
            build(packet, o.peer(), o.opId(), o.provErrno());
            txQueue.send(packet);
            counters.increment(EndpointCounter.PEER_ERRORS_SENT);
            sent++;
        }
        return sent;
    }

    /** Builds a PEER_ERROR as the provider does: OPE_INDEX, our connid always present. */
    void build(PacketEntry packet, Peer peer, long opId, long provErrno) {
        final ByteBuffer buffer = packet.buffer;
        base.wrap(buffer, 0).type(PacketType.PEER_ERROR.id()).version(BaseHeaderFlyweight.PROTOCOL_VERSION)
                .flags(PacketFlags.CONNID_HDR_FLAG);
        header.wrap(buffer, 0).opId(opId).refKind(PeerErrorFlyweight.REF_OPE_INDEX).provErrno(provErrno)
                .connid(Integer.toUnsignedLong(self.connid()));
        packet.length = PeerErrorFlyweight.HEADER_LENGTH;
        packet.assign(peer);
    }

    /** A device status keeps its number; anything else from the wire is OTHER. */
    private static EfaErrorCode error(long provErrno) {
        final CompletionStatus status = provErrno > 0 && provErrno <= Integer.MAX_VALUE
                ? CompletionStatus.fromValue((int) provErrno) : null;
        return status != null ? EfaErrorCode.of(status) : EfaErrorCode.OTHER;
    }
}
