package org.rpcrdma4j.efa.endpoint;

import org.rpcrdma4j.efa.EndpointConfig;
import org.rpcrdma4j.efa.wire.ExtraFeature;
import org.rpcrdma4j.efa.wire.PacketType;
import org.rpcrdma4j.efa.wire.WireLimits;

/**
 * Chooses the message subprotocol, in one place as libfabric's {@code efa_rdm_msg_select_rtm}
 * does (EFA RDM protocol v4 §3.2, §4.1): long-read for a message of at least
 * {@code minReadMessageSize} bytes when both ends announced RDMA read in their handshakes (a peer
 * whose handshake has not arrived counts as without it) and the send buffer can be described in
 * a {@code read_iov} the peer accepts; otherwise eager if the message fits one packet and the
 * eager limit, medium up to the medium limit, long-CTS above. Runting read is not offered.
 */
final class ProtocolSelector {

    private final EndpointConfig config;
    private final int mtu;
    private final boolean canRead;
    private final long maxRdmaSize;

    /**
     * @param canRead whether this endpoint announces and uses RDMA read
     * @param maxRdmaSize the device's largest RDMA operation, the most one read_iov entry describes
     */
    ProtocolSelector(EndpointConfig config, int mtu, boolean canRead, long maxRdmaSize) {
        this.config = config;
        this.mtu = mtu;
        this.canRead = canRead;
        this.maxRdmaSize = maxRdmaSize;
    }

    Protocol select(int length, Peer peer, boolean tagged, boolean hasCqData) {
        if (length >= config.minReadMessageSize() && canRead && peer.has(ExtraFeature.RDMA_READ)
                && LongReadSender.readIovCount(length, maxRdmaSize) <= WireLimits.DEFAULT_MAX_READ_IOV_COUNT) {
            return Protocol.LONG_READ;
        }
        if (length <= eagerLimit(peer, tagged, hasCqData)) {
            return Protocol.EAGER;
        }
        return length <= config.mediumMaxSize() ? Protocol.MEDIUM : Protocol.LONG_CTS;
    }

    /**
     * The largest eager message to {@code peer} now. The header can only shrink later (the raw
     * address goes when the handshake arrives), so a message chosen as eager still fits when its
     * packet is built after a wait.
     */
    int eagerLimit(Peer peer, boolean tagged, boolean hasCqData) {
        final PacketType type = tagged ? PacketType.EAGER_TAGRTM : PacketType.EAGER_MSGRTM;
        return Math.min(config.eagerMaxSize(), mtu - ReqHeader.length(type, peer, hasCqData));
    }
}
