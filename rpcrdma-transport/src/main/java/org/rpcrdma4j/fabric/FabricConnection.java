package org.rpcrdma4j.fabric;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import org.rpcrdma4j.xdr.Segment;

/**
 * One connection of a {@link Fabric}: RPC-over-RDMA messages both ways, RDMA Read and Write of the
 * peer's registered memory, and its end. Progress thread only, like the fabric.
 *
 * <h2>Buffer ownership</h2>
 * The bytes between position and limit of a buffer given to {@link #postReceive} or {@link #send}
 * belong to the fabric until the matching {@link ConnectionListener} callback; positions and limits
 * are never changed. The local bytes of a {@link #read} or {@link #write} belong to the fabric until
 * {@link ConnectionListener#onRdmaCompleted}. After {@link #close} or a failure, everything posted
 * still comes back, flushed ({@link FabricStatus#FLUSHED}), before
 * {@link ConnectionListener#onDisconnected}.
 */
public interface FabricConnection {

    /** @return the peer's address */
    FabricAddress peer();

    /**
     * @return this side's socket address as oncrpc4j shows it, the same object for the connection's
     *     lifetime (docs/ARCHITECTURE.md, "Addresses a connection shows oncrpc4j")
     */
    InetSocketAddress localSocketAddress();

    /** @return the peer's socket address as oncrpc4j shows it, the same object for the connection's lifetime */
    InetSocketAddress remoteSocketAddress();

    /**
     * Posts a receive buffer for one message from the peer.
     *
     * @param buffer where the message goes, between position and limit
     * @return false if the fabric has no room for another receive (try again later) or the connection
     *     is closed (the buffer is then the caller's)
     */
    boolean postReceive(ByteBuffer buffer);

    /**
     * Sends one message.
     *
     * @param message the message, between position and limit
     * @param context returned in {@link ConnectionListener#onSendCompleted}
     * @return false if the fabric has no room for another send (try again later)
     */
    boolean send(ByteBuffer message, long context);

    /**
     * Whether this connection can invalidate one of the peer's handles with a message
     * ({@link #sendInvalidating}): verbs RC can (Send with Invalidate, when the device supports memory
     * management extensions); the EFA fabric cannot. A responder uses it only when the requester
     * offered remote invalidation in its RFC 8797 private data (RFC 8797 §7).
     *
     * @return false unless the fabric implements {@link #sendInvalidating}
     */
    default boolean remoteInvalidation() {
        return false;
    }

    /**
     * Sends one message that also invalidates one of the peer's registrations on arrival (RDMA Send
     * with Invalidate): once the peer has the message, {@code handle} reaches none of its memory.
     *
     * @param message the message, between position and limit
     * @param handle  the peer's handle (R_key) to invalidate, one it advertised in the call answered
     * @param context returned in {@link ConnectionListener#onSendCompleted}
     * @return false if the fabric has no room for another send (try again later)
     * @throws UnsupportedOperationException if {@link #remoteInvalidation()} is false
     */
    default boolean sendInvalidating(ByteBuffer message, int handle, long context) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot invalidate a peer's handle");
    }

    /**
     * Starts one RDMA Read of the peer's memory into registered local memory.
     *
     * @param local       the registration the bytes go into, with {@link MemoryAccess#LOCAL_WRITE}
     * @param localOffset where in it, from its first byte
     * @param remote      the peer's bytes (handle, length, offset)
     * @param context     returned in {@link ConnectionListener#onRdmaCompleted}
     * @return false if the fabric has no room for another operation (try again later)
     */
    boolean read(Registration local, long localOffset, Segment remote, long context);

    /**
     * Starts one RDMA Write of registered local memory into the peer's memory.
     *
     * @param local       the registration the bytes come from
     * @param localOffset where in it, from its first byte
     * @param remote      where the bytes go (handle, length, offset); its length is the byte count
     * @param context     returned in {@link ConnectionListener#onRdmaCompleted}
     * @return false if the fabric has no room for another operation (try again later)
     */
    boolean write(Registration local, long localOffset, Segment remote, long context);

    /**
     * Ends the connection, telling the peer: what is posted comes back flushed, then
     * {@link ConnectionListener#onDisconnected}. Closing again does nothing.
     */
    void close();
}
