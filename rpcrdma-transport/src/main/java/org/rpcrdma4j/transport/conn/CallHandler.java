package org.rpcrdma4j.transport.conn;

import org.rpcrdma4j.transport.marshal.ProvidedChunks;

/**
 * What a {@link Responder} hands received calls to. Called on the progress thread: it must not block
 * (it hands the work to worker threads).
 */
public interface CallHandler {

    /**
     * A call arrived, inline or rebuilt from its Read chunks.
     *
     * @param connection the connection it came on
     * @param xid        the XID from the transport header
     * @param rpcMessage the whole RPC call message, owned by the handler
     * @param provided   the chunks the call provided for its reply, to give back to
     *                   {@link Responder#reply}
     */
    void onCall(Connection connection, int xid, byte[] rpcMessage, ProvidedChunks provided);

    /**
     * A connection closed; replies on it will fail.
     *
     * @param connection the closed connection
     */
    void onClosed(Connection connection);
}
