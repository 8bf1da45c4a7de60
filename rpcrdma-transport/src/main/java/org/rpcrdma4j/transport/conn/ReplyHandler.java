package org.rpcrdma4j.transport.conn;

import org.rpcrdma4j.transport.MessageBytes;
import org.rpcrdma4j.transport.RdmaTransportException;
import org.rpcrdma4j.transport.marshal.ChunkBufferPool;

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
     * @param chunkMemory the lease of that chunk memory, deregistered already, or {@code null} when
     *                    the call provided no Write or Reply chunk: the handler gives it back
     *                    ({@link ChunkBufferPool.Lease#giveBack}) once nothing reads the message any more,
     *                    or never
     */
    void onReply(int xid, MessageBytes rpcMessage, ChunkBufferPool.Lease chunkMemory);

    /**
     * A call failed: the responder answered RDMA_ERROR, the reply could not be used, or the
     * connection closed.
     *
     * @param xid   the XID of the call
     * @param error why, with its scope
     */
    void onFailed(int xid, RdmaTransportException error);
}
