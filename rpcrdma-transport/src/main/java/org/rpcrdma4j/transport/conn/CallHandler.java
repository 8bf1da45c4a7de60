package org.rpcrdma4j.transport.conn;

/**
 * What a {@link Responder} hands received calls to. Called on the progress thread: it must not block
 * (it hands the work to worker threads).
 */
public interface CallHandler {

    /**
     * A call arrived inline.
     *
     * @param connection the connection it came on
     * @param xid        the XID from the transport header
     * @param rpcMessage the whole RPC call message, owned by the handler
     */
    void onCall(Connection connection, int xid, byte[] rpcMessage);

    /**
     * A connection closed; replies on it will fail.
     *
     * @param connection the closed connection
     */
    void onClosed(Connection connection);
}
