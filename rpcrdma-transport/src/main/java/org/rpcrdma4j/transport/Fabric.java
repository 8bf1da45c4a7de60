package org.rpcrdma4j.transport;

import java.nio.ByteBuffer;

/**
 * The narrow seam between the RPC-over-RDMA transport and a fabric (DESIGN.md, "The fabric seen by
 * the transport"). Declared here: what inline messaging needs. RDMA Read, RDMA Write and memory
 * registration join with chunk support.
 *
 * <h2>Threads</h2>
 * A fabric has one progress thread. {@link #postReceive}, {@link #send} and {@link #insert} may only
 * be called on it, that is from {@link FabricListener} callbacks or from commands handed to
 * {@link #execute}; {@link #execute} and {@link #localAddress} may be called from any thread.
 *
 * <h2>Buffer ownership</h2>
 * The bytes between position and limit of a buffer given to {@link #postReceive} or {@link #send}
 * belong to the fabric until the matching {@link FabricListener} callback; positions and limits are
 * never changed.
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

    /** The handle a receive uses to accept any sender. */
    long ANY_PEER = -1;
}
