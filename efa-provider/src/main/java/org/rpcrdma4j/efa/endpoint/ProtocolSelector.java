package org.rpcrdma4j.efa.endpoint;

import java.util.function.IntSupplier;
import org.rpcrdma4j.efa.CompletionEntry;
import org.rpcrdma4j.efa.EndpointConfig;
import org.rpcrdma4j.efa.wire.ExtraFeature;
import org.rpcrdma4j.efa.wire.PacketType;
import org.rpcrdma4j.efa.wire.WireLimits;

/**
 * Chooses the message subprotocol, in one place as libfabric's {@code efa_rdm_msg_select_rtm}
 * does (EFA RDM protocol v4 §3.2, §4.1, §4.5): a read-based subprotocol for a message of at least
 * {@code minReadMessageSize} bytes when both ends announced RDMA read in their handshakes (a peer
 * whose handshake has not arrived counts as without it) and the send buffer can be described in
 * a {@code read_iov} the peer accepts; otherwise eager if the message fits one packet and the
 * eager limit, medium up to the medium limit, long-CTS above. The read-based one is runting read
 * when the peer announced it too, no message of this endpoint is being read and the peer's runt
 * budget leaves a runt ({@link #runtLength}), long-read otherwise ({@code efa_rdm_peer_select_readbase_rtm}).
 * RMA operations are chosen here too ({@link #selectRma}). A delivery-complete operation is chosen the same
 * way, but never runting read (libfabric's selection leaves it out for {@code FI_DELIVERY_COMPLETE}); only its
 * eager limits are 8 bytes lower (§4.2), and the DC variant of what is chosen is sent where there is one.
 */
final class ProtocolSelector {

    private final EndpointConfig config;
    private final int mtu;
    private final boolean canRead;
    private final boolean canWrite;
    private final long maxRdmaSize;
    private final IntSupplier messagesBeingRead;

    /**
     * @param canRead whether this endpoint announces and uses RDMA read
     * @param canWrite whether this endpoint announces and uses RDMA write
     * @param maxRdmaSize the device's largest RDMA operation, the most one read_iov entry describes
     * @param messagesBeingRead how many long-read and runting-read messages wait for their reader's answer
     */
    ProtocolSelector(EndpointConfig config, int mtu, boolean canRead, boolean canWrite, long maxRdmaSize,
                     IntSupplier messagesBeingRead) {
        this.config = config;
        this.mtu = mtu;
        this.canRead = canRead;
        this.canWrite = canWrite;
        this.maxRdmaSize = maxRdmaSize;
        this.messagesBeingRead = messagesBeingRead;
    }

    /**
     * @param deliveryComplete whether the send asked for delivery complete: the same thresholds, but the eager
     *     limit is that of the longer DC_EAGER header (§4.2, libfabric's {@code efa_rdm_txe_max_req_data_capacity}
     *     of the DC type)
     */
    Protocol select(int length, Peer peer, boolean tagged, boolean hasCqData, boolean deliveryComplete) {
        if (length >= config.minReadMessageSize() && canRead && peer.has(ExtraFeature.RDMA_READ)
                && LongReadSender.readIovCount(length, maxRdmaSize) <= WireLimits.DEFAULT_MAX_READ_IOV_COUNT) {
            return !deliveryComplete && peer.has(ExtraFeature.RUNT) && messagesBeingRead.getAsInt() == 0
                    && runtLength(peer, length) > 0 ? Protocol.RUNT_READ : Protocol.LONG_READ;
        }
        if (length <= eagerLimit(peer, tagged, hasCqData, deliveryComplete)) {
            return Protocol.EAGER;
        }
        return length <= config.mediumMaxSize() ? Protocol.MEDIUM : Protocol.LONG_CTS;
    }

    /**
     * The bytes of a message of {@code length} to send as runts to {@code peer} now, as libfabric's
     * {@code efa_rdm_peer_get_runt_size}: what {@code runtSize} leaves beside the runt bytes in flight to the
     * peer, at most the message, rounded down to {@link RuntRead#ALIGNMENT}; 0 for none.
     */
    int runtLength(Peer peer, int length) {
        final long left = config.runtSize() - peer.runtBytesInFlight;
        return left <= 0 ? 0 : (int) Math.min(left, length) & -RuntRead.ALIGNMENT;
    }

    /**
     * Chooses how an RMA operation goes, once the peer's handshake is in (libfabric's
     * {@code efa_rdm_rma_post_read} and {@code efa_rdm_rma_post_write}, §3.3, §4.1, §4.6): direct RDMA when
     * both ends announced the feature (a write with remote CQ data never: the device has no write with
     * immediate); otherwise a read goes SHORT_RTR if it fits one READRSP, LONGCTS_RTR above; a write goes
     * LONGREAD_RTW from {@code minReadWriteSize} bytes when both ends can RDMA-read, else
     * {@link #emulatedWrite}.
     */
    Protocol selectRma(TxEntry op) {
        final Peer peer = op.peer;
        final boolean peerReads = canRead && peer.has(ExtraFeature.RDMA_READ);
        if (op.kind == CompletionEntry.Kind.READ) {
            return peerReads ? Protocol.DIRECT_READ
                    : EmulatedRead.isShort(op.remote.length(), mtu) ? Protocol.SHORT_RTR : Protocol.LONGCTS_RTR;
        }
        if (!op.hasCqData && canWrite && peer.has(ExtraFeature.RDMA_WRITE)) {
            return Protocol.DIRECT_WRITE;
        }
        if (peerReads && op.remote.length() >= config.minReadWriteSize()
                && LongReadSender.readIovCount(op.remote.length(), maxRdmaSize) <= WireLimits.DEFAULT_MAX_READ_IOV_COUNT) {
            return Protocol.LONGREAD_RTW;
        }
        return emulatedWrite(op);
    }

    /**
     * An emulated write without RDMA read: EAGER_RTW if it fits one packet, LONGCTS_RTW above (§3.3); a write
     * that asked for delivery complete measures the longer DC_EAGER_RTW header (§4.2).
     */
    Protocol emulatedWrite(TxEntry op) {
        final PacketType type = EagerRtw.type(op.deliveryComplete);
        return op.remote.length() <= mtu - ReqHeader.length(type, 1, op.peer, op.hasCqData)
                ? Protocol.EAGER_RTW : Protocol.LONGCTS_RTW;
    }

    /**
     * The largest eager message to {@code peer} now. The header can only shrink later (the raw
     * address goes when the handshake arrives), so a message chosen as eager still fits when its
     * packet is built after a wait.
     */
    int eagerLimit(Peer peer, boolean tagged, boolean hasCqData, boolean deliveryComplete) {
        return Math.min(config.eagerMaxSize(),
                mtu - ReqHeader.length(EagerRtm.type(tagged, deliveryComplete), peer, hasCqData));
    }
}
