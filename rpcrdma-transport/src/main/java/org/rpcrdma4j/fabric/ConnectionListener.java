package org.rpcrdma4j.fabric;

import java.nio.ByteBuffer;
import org.rpcrdma4j.xdr.ConnectPrivateData;

/**
 * Receives one {@link FabricConnection}'s events, always on the fabric's progress thread.
 * Implementations must not block: the progress thread serves every connection of the fabric.
 */
public interface ConnectionListener {

    /**
     * The connection is up: the peer accepted (requester) or this side's acceptance went out
     * (responder).
     *
     * @param peerData the peer's RFC 8797 private data, or {@link ConnectPrivateData#DEFAULT} if it
     *                 sent none
     */
    void onEstablished(ConnectPrivateData peerData);

    /**
     * A posted receive took a message. The buffer belongs to the listener from now on; to receive
     * again it posts it (or another) with {@link FabricConnection#postReceive}.
     *
     * @param buffer the buffer given to {@link FabricConnection#postReceive}; position and limit as posted
     * @param length the bytes of the message, from the buffer's position
     */
    void onReceived(ByteBuffer buffer, int length);

    /**
     * A posted receive ended without a message (too long for the buffer, or flushed); the buffer
     * belongs to the listener again.
     *
     * @param buffer the buffer given to {@link FabricConnection#postReceive}
     * @param status why
     */
    void onReceiveFailed(ByteBuffer buffer, FabricStatus status);

    /**
     * A send ended; its buffer belongs to the sender again.
     *
     * @param context the context given to {@link FabricConnection#send}
     * @param status  {@link FabricStatus#SUCCESS} or why it failed
     */
    void onSendCompleted(long context, FabricStatus status);

    /**
     * An RDMA Read or Write ended; its local bytes belong to the caller again.
     *
     * @param context the context given to {@link FabricConnection#read} or {@link FabricConnection#write}
     * @param status  {@link FabricStatus#SUCCESS} or why it failed
     */
    void onRdmaCompleted(long context, FabricStatus status);

    /**
     * The connection ended, by either side or by a failure, and everything posted on it has come back.
     * Called once; nothing follows.
     *
     * @param status why: {@link FabricStatus#CLOSED} for an orderly close by either side
     * @param detail what the fabric or the peer said, for logs and errors
     */
    void onDisconnected(FabricStatus status, String detail);
}
