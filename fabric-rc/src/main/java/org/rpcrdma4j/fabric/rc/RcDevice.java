package org.rpcrdma4j.fabric.rc;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Set;
import org.rpcrdma4j.fabric.MemoryAccess;
import org.rpcrdma4j.verbs.CmEventType;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WcStatus;

/**
 * The verbs objects the RC fabric drives, narrowed to what it needs: RDMA-CM ids named by a number,
 * one RC queue pair per id on one shared completion queue, memory registrations, and one call that
 * hands over what happened. {@link VerbsRcDevice} is the real one over libibverbs and librdmacm; a
 * {@link SimulatedRc} network's devices are simulated in the JVM, so that the fabric's logic
 * (connection states, completion routing, flush accounting, private data) runs without an RDMA device.
 *
 * <p>Not thread-safe: only the thread in the fabric's turn calls it, except {@link #wakeup()} and what
 * tears an ended connection down, {@link #destroy}, {@link #deallocateWindow} and {@link #deregister},
 * which the fabric's reaper calls on its own thread at the same time (for ids, windows and
 * registrations the turn no longer uses): destroying a queue pair may block in the kernel.
 */
interface RcDevice extends AutoCloseable {

    /** A registration: the keys and the address of its first byte, as work requests and peers name it. */
    record Memory(long address, long length, int lkey, int rkey) {
    }

    /**
     * One local buffer of a work request ({@code struct ibv_sge}).
     *
     * @param address its first byte
     * @param length  its bytes
     * @param lkey    the local key of the registration it lies in
     */
    record Sge(long address, int length, int lkey) {
    }

    /**
     * A type 2 memory window ({@code ibv_alloc_mw}).
     *
     * @param handle the device's number for it
     * @param rkey   its key at allocation: a bind gives it {@code MemoryWindow.nextRkey} of its current key
     */
    record Window(long handle, int rkey) {
    }

    /** What {@link Events#completion} carries when the completion invalidated no key. */
    long NOT_INVALIDATED = -1;

    /** What {@link #poll} and {@link #arm} hand over, in the order the device reported it. */
    interface Events {

        /**
         * An RDMA-CM event, acked already.
         *
         * @param id          the id it concerns: for {@link CmEventType#CONNECT_REQUEST} a new one
         * @param type        what happened
         * @param status      the event's status (a negative errno, or a CM reject reason)
         * @param privateData a copy of the private data room (56 bytes in a REQ, 196 in a REP), or empty
         */
        void cmEvent(long id, CmEventType type, int status, byte[] privateData);

        /**
         * A work completion.
         *
         * @param qpNum      the queue pair it belongs to
         * @param wrId       the work request's id
         * @param status     how it ended
         * @param byteLength for a receive, the bytes of the message
         * @param invalidated for a receive of a Send with Invalidate ({@code IBV_WC_WITH_INV}), the
         *                    key the peer invalidated as u32; otherwise {@link #NOT_INVALIDATED}
         */
        void completion(int qpNum, long wrId, WcStatus status, int byteLength, long invalidated);

        /**
         * The device reported a queue pair broken (an asynchronous QP_FATAL, access or request error).
         *
         * @param qpNum  the queue pair
         * @param detail what the device said
         */
        void queuePairFailed(int qpNum, String detail);
    }

    /**
     * Binds an id to an address and listens on it.
     *
     * @return the listening id
     */
    long listen(InetSocketAddress address, int backlog) throws VerbsException;

    /** @return a new id, for connecting */
    long createId() throws VerbsException;

    /** Starts address resolution; ADDR_RESOLVED or ADDR_ERROR follows. */
    void resolveAddress(long id, InetSocketAddress peer, int timeoutMillis) throws VerbsException;

    /** Starts route resolution; ROUTE_RESOLVED or ROUTE_ERROR follows. */
    void resolveRoute(long id, int timeoutMillis) throws VerbsException;

    /** @return the id's local socket address, or null if it has none yet */
    InetSocketAddress localAddress(long id);

    /** @return the id's peer socket address, or null if it has none yet */
    InetSocketAddress peerAddress(long id);

    /**
     * Creates the id's RC queue pair, its completions on the device's shared completion queue.
     *
     * @return the queue pair number, which every completion of it carries
     * @throws VerbsException EINVAL if a depth exceeds the device's {@code max_qp_wr}, ENOSPC if the
     *                        shared completion queue has no room for both depths
     */
    int createQueuePair(long id, int sendDepth, int receiveDepth) throws VerbsException;

    /**
     * @return whether the device can post Send with Invalidate ({@link #postSendWithInvalidate}):
     *     it has the memory management extensions, as svcrdma requires; false before the fabric has
     *     a device
     */
    boolean remoteInvalidation();

    /**
     * @param id an id with a route: its device is the fabric's from now on
     * @return whether that device has type 2 memory windows ({@link #allocateWindow})
     * @throws VerbsException if the device cannot be opened, or is not the fabric's
     */
    boolean memoryWindows(long id) throws VerbsException;

    /**
     * {@code rdma_connect} with the private data in the REQ.
     *
     * @param retryCount    transport retries of both queue pairs before a work request fails (0-7)
     * @param rnrRetryCount RNR retries of the peer's queue pair (0-7, 7 without end)
     */
    void connect(long id, byte[] privateData, int retryCount, int rnrRetryCount) throws VerbsException;

    /**
     * {@code rdma_accept} with the private data in the REP.
     *
     * @param retryCount    transport retries (the REP has no room for them: the REQ's count serves)
     * @param rnrRetryCount RNR retries of the peer's queue pair (0-7, 7 without end)
     */
    void accept(long id, byte[] privateData, int retryCount, int rnrRetryCount) throws VerbsException;

    /** {@code rdma_reject} without private data. */
    void reject(long id) throws VerbsException;

    /** {@code rdma_disconnect}: the queue pair goes to the error state and flushes what is posted. */
    void disconnect(long id) throws VerbsException;

    /**
     * Destroys the id and its queue pair; the id's events read meanwhile still name it. May block
     * (rdma_rxe has taken 30-40 s for a queue pair whose peer stopped answering).
     */
    void destroy(long id) throws VerbsException;

    /**
     * Registers native memory ({@code ibv_reg_mr}). Local write is always granted, as receives and
     * RDMA Read targets need it.
     */
    Memory register(MemorySegment memory, Set<MemoryAccess> access) throws VerbsException;

    /**
     * Registers native memory that peers reach only through memory windows bound over it: local
     * write and {@code IBV_ACCESS_MW_BIND}, no remote right, so its own key reaches nothing.
     */
    Memory registerForWindows(MemorySegment memory) throws VerbsException;

    /** Deregisters ({@code ibv_dereg_mr}). */
    void deregister(Memory memory) throws VerbsException;

    /** Allocates a type 2 memory window ({@code ibv_alloc_mw}), unbound. */
    Window allocateWindow() throws VerbsException;

    /** Deallocates a window ({@code ibv_dealloc_mw}); bound, it is invalidated. */
    void deallocateWindow(long handle) throws VerbsException;

    /**
     * Posts a signaled bind of a type 2 window ({@code IBV_WR_BIND_MW}) over bytes of a registration
     * made by {@link #registerForWindows}: from then on {@code rkey} reaches them, through this id's
     * queue pair only, until invalidated. Work requests posted after it on the queue pair run after it.
     *
     * @param window  the window, unbound or invalidated
     * @param rkey    its new key: its current one with the low byte incremented
     * @param memory  the registration
     * @param address the first byte of the range
     * @param length  the range's bytes, at least 1
     * @param rights  what the peer may do: {@link MemoryAccess#REMOTE_READ}, {@link MemoryAccess#REMOTE_WRITE}
     */
    void postBind(long id, long wrId, long window, int rkey, Memory memory, long address, long length,
                  Set<MemoryAccess> rights) throws VerbsException;

    /** Posts a signaled local invalidate ({@code IBV_WR_LOCAL_INV}) of a window's key. */
    void postLocalInvalidate(long id, long wrId, int rkey) throws VerbsException;

    /**
     * Posts a receive of {@code length} bytes at {@code address}.
     *
     * @return false if the receive queue is full: nothing was posted (a full queue is room to wait for,
     *     answered without an exception, as the data path meets it)
     */
    boolean postReceive(long id, long wrId, long address, int length, int lkey) throws VerbsException;

    /**
     * Posts a signaled Send of {@code length} bytes at {@code address}.
     *
     * @return false if the send queue is full: nothing was posted
     */
    boolean postSend(long id, long wrId, long address, int length, int lkey) throws VerbsException;

    /**
     * Posts a signaled Send with Invalidate ({@code IBV_WR_SEND_WITH_INV}): the peer's device
     * invalidates its {@code rkey} as the message arrives.
     *
     * @return false if the send queue is full: nothing was posted
     */
    boolean postSendWithInvalidate(long id, long wrId, long address, int length, int lkey, int rkey)
            throws VerbsException;

    /**
     * @return the most scatter/gather entries an RDMA Read may have on the queue pairs this device
     *     makes (their {@code max_send_sge}, within the device's {@code max_sge_rd}); 1 before the
     *     device is known
     */
    int maxReadSge();

    /**
     * @return the most scatter/gather entries an RDMA Write may have on the queue pairs this device
     *     makes (their {@code max_send_sge}); 1 before the device is known
     */
    int maxWriteSge();

    /**
     * Posts a signaled RDMA Read of the peer's bytes into local memory: into the buffers in order,
     * at most {@link #maxReadSge()} of them.
     *
     * @return false if the send queue is full: nothing was posted
     */
    boolean postRead(long id, long wrId, List<Sge> local, long remoteAddress, int rkey) throws VerbsException;

    /**
     * Posts a signaled RDMA Write of local memory into the peer's: the buffers in order, at most
     * {@link #maxWriteSge()} of them.
     *
     * @return false if the send queue is full: nothing was posted
     */
    boolean postWrite(long id, long wrId, List<Sge> local, long remoteAddress, int rkey) throws VerbsException;

    /**
     * Hands over the CM events, completions and asynchronous events that are there now.
     *
     * @return how many were handed over
     */
    int poll(Events events) throws VerbsException;

    /**
     * Prepares to {@link #await}: asks to be woken by the next completion, then hands over the
     * completions that came before it asked. Sleep only if it handed none over.
     *
     * @return how many were handed over
     */
    int arm(Events events) throws VerbsException;

    /**
     * Sleeps until a CM event, a completion after {@link #arm}, an asynchronous event, a
     * {@link #wakeup} or the timeout, whichever comes first; hands nothing over (the next
     * {@link #poll} does). It touches nothing that posting work touches, so other threads may post
     * while it sleeps.
     */
    void await(int timeoutMillis) throws VerbsException;

    /** Makes the current or next {@link #await} return at once; any thread. */
    void wakeup();

    /** Releases what the device holds; every id must be destroyed and every registration released. */
    @Override
    void close();
}
