package org.rpcrdma4j.efa.endpoint;

import java.nio.ByteBuffer;
import java.util.Set;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.wire.DecodedPacket;
import org.rpcrdma4j.efa.wire.RmaIovFlyweight;

/**
 * The one check every target of an emulated write, read or atomic runs before it touches memory (libfabric's
 * {@code efa_rdm_rma_verified_copy_iov}): the REQ's {@code rma_iov} must name bytes of a registration the
 * application made through this endpoint, inside it, with the right the operation needs.
 *
 * <p>This endpoint sends one {@code rma_iov} entry per request and serves requests with exactly one, all a
 * libfabric application may send: the provider's RDM endpoint advertises {@code rma_iov_limit} 1
 * ({@code efa_rdm_tx_attr}), though its wire code loops over up to {@code EFA_RDM_IOV_LIMIT} (4) entries. A
 * request with none or several is refused like a bad key.
 *
 * <p>A refusal is counted ({@link EndpointCounter#RMA_ACCESS_REFUSED}) and, when the request names its
 * initiator's operation ({@code send_id} of LONGCTS_RTW, LONGREAD_RTW, the DC writes and DC_WRITE_RTA,
 * {@code recv_id} of the RTRs, FETCH_RTA and COMPARE_RTA), reported to it with a PEER_ERROR
 * ({@link PeerErrors}). An EAGER_RTW or WRITE_RTA names no operation: its initiator completed it when the
 * packet was delivered, as the provider's does, and only this endpoint's counter tells of the refusal.
 * libfabric's provider reports every refusal only on the target's event queue ({@code FI_EFA_ERR_RMA_ADDR}).
 */
final class RmaAccess {

    /** What an emulated write and a write atomic need. */
    static final Set<Access> REMOTE_WRITE = Set.of(Access.REMOTE_WRITE);
    /** What an emulated read and a fetch of ATOMIC_READ need. */
    static final Set<Access> REMOTE_READ = Set.of(Access.REMOTE_READ);
    /** What a fetch or compare atomic that may change the memory needs: it reads and writes it (fi_mr(3)). */
    static final Set<Access> REMOTE_READ_WRITE = Set.of(Access.REMOTE_READ, Access.REMOTE_WRITE);

    private final RmaIovFlyweight iov = new RmaIovFlyweight();
    private final RegisteredMemory memory;
    private final PeerErrors peerErrors;
    private final Counters counters;

    RmaAccess(RegisteredMemory memory, PeerErrors peerErrors, Counters counters) {
        this.memory = memory;
        this.peerErrors = peerErrors;
        this.counters = counters;
    }

    /**
     * @param needed the rights the registration must grant, every one
     * @param opId the initiator's operation the request names, or -1 if it names none
     * @return the bytes the request's rma_iov names, or null if they are refused (and the refusal reported)
     */
    ByteBuffer target(Peer peer, ByteBuffer buffer, DecodedPacket packet, Set<Access> needed, long opId) {
        final int count = (packet.mandatoryHeaderLength() - packet.type().mandatoryHeaderLength())
                / RmaIovFlyweight.LENGTH;
        ByteBuffer bytes = null;
        if (count == 1) {
            iov.wrap(buffer, packet.offset() + packet.type().mandatoryHeaderLength());
            bytes = memory.remote(iov.key(), iov.addr(), iov.len(), needed);
        }
        if (bytes == null) {
            refuse(peer, opId);
        }
        return bytes;
    }

    /** A request that cannot be served: counted, and reported to its initiator when it names an operation. */
    void refuse(Peer peer, long opId) {
        counters.increment(EndpointCounter.RMA_ACCESS_REFUSED);
        if (opId >= 0) {
            peerErrors.report(peer, opId);
        }
    }
}
