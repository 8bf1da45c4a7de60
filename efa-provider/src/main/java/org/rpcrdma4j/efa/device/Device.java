package org.rpcrdma4j.efa.device;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * An EFA device as the RDM provider sees it: one queue pair with its completion queue, its
 * address handles and its memory registrations. It sends packets of at most the MTU to
 * (address handle, QPN, Q-Key), receives them into pre-posted buffers, does RDMA read and,
 * if capable, RDMA write, and reports every outcome as a {@link Completion}.
 *
 * <h2>Queues and back-pressure</h2>
 * Sends, RDMA reads and RDMA writes share the send queue; receive buffers fill the receive queue.
 * An entry stays in its queue until its completion has been polled. A post to a full queue does
 * nothing and returns {@code false} (the {@code EAGAIN} of {@code ibv_post_send}); the caller keeps
 * the work and retries after polling, as the EFA provider queues it
 * (libfabric's EFA send/receive completion paths document, "Dealing with device resource exhaustion").
 *
 * <h2>Buffer ownership</h2>
 * <ul>
 *   <li>A packet given to {@link #postSend} is the bytes between the buffer's position and limit
 *       at the time of the call. They belong to the device until the SEND completion is polled:
 *       the device may read them at any time before, so the caller must not change them.</li>
 *   <li>A buffer given to {@link #postRecv} belongs to the device from the call until its RECV
 *       completion is polled. The packet is written starting at the buffer's position.</li>
 *   <li>A registered region's bytes may be read or written by the device, on behalf of peers or
 *       of local RDMA operations, at any time until the region is deregistered.</li>
 * </ul>
 * The device never changes a buffer's position, limit or mark.
 *
 * <h2>Errors</h2>
 * Misuse throws {@link IllegalArgumentException} or {@link IllegalStateException}: a handle this
 * device did not make or has destroyed, a negative length, an operation the device has no
 * {@link Capability} for. Whatever the device checks as it executes an operation ends in a
 * completion with a {@link CompletionStatus} instead, never an exception. Freeing what a queue pair
 * that is gone made (a handle or region of a simulated device before its restart) is not misuse:
 * nothing is left to free, and the call does nothing.
 *
 * <h2>Lifecycle</h2>
 * {@link #close()} destroys the queue pair ({@code ibv_destroy_qp}) with its address handles and
 * registrations and frees its QPN; every later call but {@code close}, {@code address},
 * {@code attributes} and {@code counters} throws {@link IllegalStateException}. Those keep answering
 * with what they answered before, so logs and peer tables can still name a closed device and a
 * summary can still show what it counted.
 *
 * <p>Not thread-safe: one progress thread owns a device, as in the EFA provider; only
 * {@link #counters()} may be called from any thread.
 */
public interface Device extends AutoCloseable {

    /** @return this queue pair's address: GID, QPN and current Q-Key (the provider's connid) */
    DeviceAddress address();

    /** @return the MTU, queue depths, maximum RDMA size and capabilities */
    DeviceAttributes attributes();

    /**
     * What the device itself counts, below the endpoint (a device with a reliability layer of its own:
     * retransmissions, datagrams dropped and why), for summaries and monitoring. Any thread, also
     * after close.
     *
     * @return its counters by name, in the order to show them; none by default
     */
    default Map<String, Long> counters() {
        return Map.of();
    }

    /**
     * Creates the handle through which this device reaches a peer GID, the analogue of
     * {@code ibv_create_ah}. Receive completions from that GID then carry the handle.
     *
     * @param gid the peer device's GID
     * @return the new handle
     * @throws IllegalStateException if a handle for this GID already exists; the provider keeps
     *     one per GID
     */
    AddressHandle createAddressHandle(Gid gid);

    /**
     * Destroys a handle. Operations already posted through it still complete.
     *
     * @param ah a handle made by this device
     * @throws IllegalArgumentException if this device did not make it or has destroyed it
     */
    void destroyAddressHandle(AddressHandle ah);

    /**
     * Registers the bytes between the buffer's position and limit.
     *
     * @param memory the bytes to register
     * @param access the rights to grant
     * @return the region, with a key and address chosen by the device, or {@code null} if the
     *     device cannot register more memory (the {@code ENOMEM} of {@code ibv_reg_mr}):
     *     registrations are a limited resource (EFA RDM protocol v4 §4.1)
     * @throws IllegalArgumentException if write access is asked of a read-only buffer
     */
    MemoryRegion registerMemory(ByteBuffer memory, Set<Access> access);

    /**
     * Deregisters a region. From now on every access through its key fails, and the key is never
     * handed out again by this device.
     *
     * @param region a region registered with this device
     * @throws IllegalArgumentException if it is not registered here (any more)
     */
    void deregisterMemory(MemoryRegion region);

    /**
     * Posts one packet. A packet longer than the MTU completes with
     * {@link CompletionStatus#LOCAL_ERROR_BAD_LENGTH}; the receiver's verdict (RNR, buffer too
     * short, ...) comes back as the status of the SEND completion.
     *
     * @param ah this device's handle for the destination GID
     * @param qpn the destination QPN
     * @param qkey the destination's Q-Key; the destination drops packets with any other
     * @param packet the packet, between position and limit; see the class comment on ownership
     * @param wrId returned in the completion
     * @return {@code false} if the send queue is full and nothing was posted
     * @throws IllegalArgumentException if the handle is not live on this device or the QPN is
     *     outside 0..65535
     */
    boolean postSend(AddressHandle ah, int qpn, int qkey, ByteBuffer packet, long wrId);

    /**
     * Posts a receive buffer. Buffers are consumed in the order posted, one per packet.
     *
     * @param buffer the space between position and limit; see the class comment on ownership
     * @param wrId returned in the completion of the packet that lands in this buffer
     * @return {@code false} if the receive queue is full and nothing was posted
     * @throws IllegalArgumentException if the buffer is read-only
     */
    boolean postRecv(ByteBuffer buffer, long wrId);

    /**
     * Posts an RDMA read of {@code remote.length()} bytes from a peer's registration into a local
     * one. The local region must grant {@link Access#LOCAL_WRITE}; the remote one
     * {@link Access#REMOTE_READ}. Over {@link DeviceAttributes#maxRdmaSize()} bytes the read
     * completes with {@link CompletionStatus#LOCAL_ERROR_BAD_LENGTH}.
     *
     * @param ah this device's handle for the target GID
     * @param qpn the target QPN
     * @param qkey the target's Q-Key
     * @param local the region to read into
     * @param localOffset where in {@code local} the bytes go, from its first byte
     * @param remote the bytes to read
     * @param wrId returned in the completion
     * @return {@code false} if the send queue is full and nothing was posted
     * @throws IllegalArgumentException if the handle is not live on this device, the QPN is out
     *     of range or the offset is negative
     * @throws IllegalStateException if this device lacks {@link Capability#RDMA_READ}
     */
    boolean postRead(AddressHandle ah, int qpn, int qkey, MemoryRegion local, long localOffset, RmaIov remote,
                     long wrId);

    /**
     * Posts an RDMA write of {@code remote.length()} bytes from a local region into a peer's
     * registration, which must grant {@link Access#REMOTE_WRITE}. Over
     * {@link DeviceAttributes#maxRdmaSize()} bytes the write completes with
     * {@link CompletionStatus#LOCAL_ERROR_BAD_LENGTH}.
     *
     * @param ah this device's handle for the target GID
     * @param qpn the target QPN
     * @param qkey the target's Q-Key
     * @param local the region the bytes come from
     * @param localOffset where in {@code local} they start
     * @param remote where they go
     * @param wrId returned in the completion
     * @return {@code false} if the send queue is full and nothing was posted
     * @throws IllegalArgumentException if the handle is not live on this device, the QPN is out
     *     of range or the offset is negative
     * @throws IllegalStateException if this device lacks {@link Capability#RDMA_WRITE}
     */
    boolean postWrite(AddressHandle ah, int qpn, int qkey, MemoryRegion local, long localOffset, RmaIov remote,
                      long wrId);

    /**
     * Hands completions to {@code sink}, oldest first, and frees their queue entries.
     *
     * @param sink receives each completion
     * @param max the most completions to hand over, at least 1
     * @return how many were handed over
     * @throws IllegalArgumentException if {@code max} is below 1
     */
    int pollCompletions(Consumer<Completion> sink, int max);

    /**
     * Asks to be told of the next completion once, as {@code ibv_req_notify_cq} on a completion
     * channel does: a device whose completions arrive on a thread of its own runs {@code wake} on that
     * thread as soon as one can be polled, so the progress thread may sleep until then instead of
     * polling. Arming again replaces the earlier request.
     *
     * @param wake what to run; it must not block
     * @return whether the request is armed; {@code false} if a completion can be polled already or the
     *     device cannot notify (the default: its completions come only as its owner drives it, as the
     *     simulated device's do), and the caller must poll instead of sleeping
     */
    default boolean armCompletionNotification(Runnable wake) {
        return false;
    }

    /**
     * Destroys the queue pair, its address handles and its registrations, and frees its QPN on
     * the fabric. Work posted and not yet completed never completes; peers' operations towards
     * the QPN fail as towards any QPN that does not exist. Closing again does nothing.
     */
    @Override
    void close();
}
