package org.rpcrdma4j.transport;

import java.nio.ByteBuffer;

/**
 * Receives a {@link Fabric}'s completions, always on the fabric's progress thread. Implementations
 * must not block: the progress thread serves every connection of the fabric.
 */
public interface FabricListener {

    /**
     * A posted receive took a message. The buffer belongs to the listener from now on; to receive
     * again it posts it (or another) with {@link Fabric#postReceive}.
     *
     * @param channel the stream the message came on
     * @param peer    the fabric's handle of the sender
     * @param buffer  the buffer given to {@link Fabric#postReceive}; its position and limit are as posted
     * @param length  the bytes of the message, from the buffer's position
     */
    void onReceived(Channel channel, long peer, ByteBuffer buffer, int length);

    /**
     * A posted receive failed (for example the message was longer than the buffer); the buffer
     * belongs to the listener again.
     *
     * @param channel the stream of the receive
     * @param peer    the sender's handle, when known
     * @param buffer  the buffer given to {@link Fabric#postReceive}
     * @param reason  what the fabric reported
     */
    void onReceiveFailed(Channel channel, long peer, ByteBuffer buffer, String reason);

    /**
     * A send ended; its buffer belongs to the sender again.
     *
     * @param context the context given to {@link Fabric#send}
     * @param error   {@code null} on success, otherwise what the fabric reported
     */
    void onSendCompleted(long context, String error);

    /**
     * An RDMA Read or Write ended; its local bytes belong to the caller again.
     *
     * @param context the context given to {@link Fabric#read} or {@link Fabric#write}
     * @param error   {@code null} on success, otherwise what the fabric reported
     */
    void onRdmaCompleted(long context, String error);
}
