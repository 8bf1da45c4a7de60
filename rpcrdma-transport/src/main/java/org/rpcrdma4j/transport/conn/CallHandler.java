package org.rpcrdma4j.transport.conn;

import java.nio.ByteBuffer;
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
     * @param rpcMessage the whole RPC call message, between its position and limit, owned by the handler;
     *                   when {@code lent} is not null, a view of that receive buffer
     * @param lent       the receive buffer the message lies in, lent to the handler, which gives it
     *                   back to the fabric's {@code MessageBuffers} once done with the call (its reply
     *                   sent, or no reply to come); null for a message of its own
     * @param provided   the chunks the call provided for its reply, to give back to
     *                   {@link Responder#reply}
     */
    void onCall(Connection connection, int xid, ByteBuffer rpcMessage, ByteBuffer lent, ProvidedChunks provided);

    /**
     * A connection closed; replies on it will fail.
     *
     * @param connection the closed connection
     */
    void onClosed(Connection connection);
}
