package org.rpcrdma4j.transport.conn;

import org.rpcrdma4j.transport.MessageBytes;
import org.rpcrdma4j.transport.RdmaTransportException;

/**
 * What a {@link Requester} hands answers to. Called on the progress thread: it must not block.
 */
public interface ReplyHandler {

    /**
     * A reply arrived.
     *
     * @param xid        the XID of the call
     * @param rpcMessage the whole RPC reply message, its chunk data in the call's chunk memory;
     *                   owned by the handler
     */
    void onReply(int xid, MessageBytes rpcMessage);

    /**
     * A call failed: the responder answered RDMA_ERROR, the reply could not be used, or the
     * connection closed.
     *
     * @param xid   the XID of the call
     * @param error why, with its scope
     */
    void onFailed(int xid, RdmaTransportException error);
}
