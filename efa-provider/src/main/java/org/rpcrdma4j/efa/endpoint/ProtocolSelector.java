package org.rpcrdma4j.efa.endpoint;

import org.rpcrdma4j.efa.EndpointConfig;
import org.rpcrdma4j.efa.wire.PacketType;

/**
 * Chooses the message subprotocol, in one place as libfabric's {@code efa_rdm_msg_select_rtm}
 * does (efa-rdm-protocol-v4.md §3.2): eager if the message fits one packet and the eager limit,
 * medium up to the medium limit, long-CTS above. Long-read is not offered, so peer features play
 * no part in two-sided traffic.
 */
final class ProtocolSelector {

    private final EndpointConfig config;
    private final int mtu;

    ProtocolSelector(EndpointConfig config, int mtu) {
        this.config = config;
        this.mtu = mtu;
    }

    Protocol select(int length, Peer peer, boolean tagged, boolean hasCqData) {
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
