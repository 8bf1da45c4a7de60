package org.rpcrdma4j.transport.conn;

import org.rpcrdma4j.transport.RdmaTransportException;

/**
 * What a {@link Responder} hands the answers to its backward calls (RFC 8167) to. Called on the
 * progress thread: it must not block.
 */
public interface BackwardReplyHandler {

    /**
     * A backward reply arrived (inline: RFC 8167).
     *
     * @param connection the connection the call went on
     * @param xid        the XID of the backward call
     * @param rpcMessage the whole RPC reply message, owned by the handler
     */
    void onBackwardReply(Connection connection, int xid, byte[] rpcMessage);

    /**
     * A backward call failed: the requester answered RDMA_ERROR, its send failed, or the connection
     * closed.
     *
     * @param connection the connection the call went on
     * @param xid        the XID of the backward call
     * @param error      why, with its scope
     */
    void onBackwardFailed(Connection connection, int xid, RdmaTransportException error);
}
