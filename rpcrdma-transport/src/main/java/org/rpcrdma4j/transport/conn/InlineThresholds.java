package org.rpcrdma4j.transport.conn;

import org.rpcrdma4j.xdr.ConnectPrivateData;

/**
 * The inline thresholds of one connection (RFC 8166 §3.3.2), whole messages including the transport
 * header: what this side may send (no more than the peer can receive) and what it receives.
 *
 * @param send    the largest message this side sends inline
 * @param receive the largest message this side accepts inline: its receive buffer size
 */
public record InlineThresholds(int send, int receive) {

    /**
     * Combines this side's private data with what the peer advertised. A peer that sent no RFC 8797
     * private data is assumed to receive 1024 bytes (RFC 8166 §3.3.2, RFC 8797 §5).
     *
     * @param ours   what this side advertised
     * @param theirs what the peer advertised, or {@link ConnectPrivateData#DEFAULT}
     * @return the thresholds
     */
    public static InlineThresholds of(ConnectPrivateData ours, ConnectPrivateData theirs) {
        return new InlineThresholds(Math.min(ours.maxSendSize(), theirs.maxRecvSize()), ours.maxRecvSize());
    }
}
