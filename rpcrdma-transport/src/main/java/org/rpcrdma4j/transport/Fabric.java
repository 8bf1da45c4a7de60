package org.rpcrdma4j.transport;

import java.nio.ByteBuffer;
import java.util.Set;
import org.rpcrdma4j.xdr.Segment;

/**
 * The narrow seam between the RPC-over-RDMA transport and a fabric (DESIGN.md, "The fabric seen by
 * the transport"): post receives, send messages, register local memory under a handle, and RDMA Read
 * from or RDMA Write to a peer's registered memory (RFC 8166 §3.4.3: an RDMA segment's handle, length
 * and offset name the peer's bytes; on EFA they are {@code efa_rma_iov}'s key, len and addr).
 *
 * <h2>Threads</h2>
 * A fabric has one progress thread. {@link #postReceive}, {@link #send} and {@link #insert} may only
 * be called on it, that is from {@link FabricListener} callbacks or from commands handed to
 * {@link #execute}. So may {@link #register}, {@link #deregister}, {@link #read} and {@link #write}.
 * {@link #execute} and {@link #localAddress} may be called from any thread.
 *
 * <h2>Buffer ownership</h2>
 * The bytes between position and limit of a buffer given to {@link #postReceive} or {@link #send}
 * belong to the fabric until the matching {@link FabricListener} callback; positions and limits are
 * never changed. Registered memory (between position and limit at {@link #register}) stays the
 * caller's, but the fabric and, with remote access, the peer may read or write it until
 * {@link #deregister}; the local bytes of a {@link #read} or {@link #write} belong to the fabric until
 * {@link FabricListener#onRdmaCompleted}.
 */
public interface Fabric {

    /** @return this fabric's own address, to give to peers */
    FabricAddress localAddress();

    /**
     * Sets the listener that gets every completion from now on.
     *
     * @param listener the listener, or {@code null} to drop completions
     */
    void listen(FabricListener listener);

    /**
     * Runs a command on the progress thread, in submission order, before the fabric's next
     * progress.
     *
     * @param command what to run; it must not block
     * @throws IllegalStateException if the progress thread has stopped
     */
    void execute(Runnable command);

    /** @return whether the caller is the progress thread, which must never wait for itself */
    boolean onProgressThread();

    /**
     * Makes a peer reachable. Progress thread only.
     *
     * @param peer the peer's address
     * @return the handle to name the peer with; the same address gives the same handle
     */
    long insert(FabricAddress peer);

    /**
     * Posts a receive buffer for one stream. Progress thread only.
     *
     * @param channel the stream
     * @param peer    the handle of the only sender accepted, or {@link #ANY_PEER}
     * @param buffer  where the message goes, between position and limit
     * @return false if the fabric has no room for another receive (try again later)
     */
    boolean postReceive(Channel channel, long peer, ByteBuffer buffer);

    /**
     * Sends one message on a stream. Progress thread only.
     *
     * @param channel the stream
     * @param peer    the receiver's handle
     * @param message the message, between position and limit
     * @param context returned in {@link FabricListener#onSendCompleted}
     * @return false if the fabric has no room for another send (try again later)
     */
    boolean send(Channel channel, long peer, ByteBuffer message, long context);

    /**
     * Registers local memory for RDMA (RFC 8166 §3.4.3). Progress thread only.
     *
     * @param memory the bytes between position and limit
     * @param access the rights to grant: {@link MemoryAccess#LOCAL_WRITE} for the target of a
     *               {@link #read}, remote rights for memory a peer reads or writes
     * @return the registration, or {@code null} if the fabric cannot register more memory
     */
    Registration register(ByteBuffer memory, Set<MemoryAccess> access);

    /**
     * Invalidates a registration: from now on no peer reaches its memory. Progress thread only.
     *
     * @param registration a registration of this fabric, not yet deregistered
     */
    void deregister(Registration registration);

    /**
     * Starts one RDMA Read of a peer's memory into registered local memory. Progress thread only.
     *
     * @param peer        the peer's handle
     * @param local       the registration the bytes go into, with {@link MemoryAccess#LOCAL_WRITE}
     * @param localOffset where in it, from its first byte
     * @param remote      the peer's bytes (handle, length, offset)
     * @param context     returned in {@link FabricListener#onRdmaCompleted}
     * @return false if the fabric has no room for another operation (try again later)
     */
    boolean read(long peer, Registration local, long localOffset, Segment remote, long context);

    /**
     * Starts one RDMA Write of registered local memory into a peer's memory. Progress thread only.
     *
     * @param peer        the peer's handle
     * @param local       the registration the bytes come from
     * @param localOffset where in it, from its first byte
     * @param remote      where the bytes go (handle, length, offset); its length is the byte count
     * @param context     returned in {@link FabricListener#onRdmaCompleted}
     * @return false if the fabric has no room for another operation (try again later)
     */
    boolean write(long peer, Registration local, long localOffset, Segment remote, long context);

    /** The handle a receive uses to accept any sender. */
    long ANY_PEER = -1;
}
