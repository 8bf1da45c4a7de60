package org.rpcrdma4j.efa.device.verbs;

import java.net.InetSocketAddress;
import org.rpcrdma4j.verbs.CmEventType;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WcStatus;

/**
 * The verbs objects {@link VerbsDevice} drives, narrowed to what it needs: RDMA-CM ids named by a
 * number, one RC queue pair per id whose receives all come from one shared receive queue (SRQ), one
 * completion queue for everything, memory registrations, and one call that hands over what happened.
 * A real implementation runs on the {@code verbs} bindings; tests run the device on an in-JVM fake, so
 * that its connection management and completion routing run without an RDMA device.
 *
 * <p>Narrower than fabric-rc's {@code RcDevice}, and apart from it: the device needs a shared receive
 * queue and no memory windows, Send with Invalidate or scatter/gather lists, and {@code RcDevice}'s
 * simulation lives with the RC fabric, which depends on the transport this module must not see.
 *
 * <p>Not thread-safe: the device's one progress thread calls it.
 */
interface RcNic extends NicMemory, AutoCloseable {

    /** What {@link #poll} hands over, in the order the NIC reported it. */
    interface Events {

        /**
         * An RDMA-CM event, acked already.
         *
         * @param id          the id it concerns: for {@link CmEventType#CONNECT_REQUEST} a new one
         * @param type        what happened
         * @param privateData a copy of the private data room (56 bytes in a REQ, 196 in a REP: the
         *                    room, not the sender's length), or empty
         */
        void cmEvent(long id, CmEventType type, byte[] privateData);

        /**
         * A work completion.
         *
         * @param qpNum      the queue pair it belongs to (for a receive: the one it arrived on)
         * @param wrId       the work request's id
         * @param status     how it ended
         * @param byteLength for a successful receive, the bytes of the message
         */
        void completion(int qpNum, long wrId, WcStatus status, int byteLength);

        /**
         * The NIC reported a queue pair broken (an asynchronous fatal, access or request error): its
         * connection is gone, and what is posted on it comes back flushed.
         *
         * @param qpNum the queue pair
         */
        void queuePairFailed(int qpNum);
    }

    /**
     * Binds a listening id to the address, on the NIC that has it.
     *
     * @return the address bound (the port the kernel chose, when asked for 0)
     */
    InetSocketAddress listen(InetSocketAddress address) throws VerbsException;

    /** @return a new id, for connecting */
    long createId() throws VerbsException;

    /** Starts address resolution; ADDR_RESOLVED or ADDR_ERROR follows. */
    void resolveAddress(long id, InetSocketAddress peer, int timeoutMillis) throws VerbsException;

    /** Starts route resolution after ADDR_RESOLVED; ROUTE_RESOLVED or ROUTE_ERROR follows. */
    void resolveRoute(long id, int timeoutMillis) throws VerbsException;

    /**
     * Creates the id's RC queue pair: receives from the shared receive queue, completions on the
     * shared completion queue.
     *
     * @return the queue pair number, which every completion of it carries
     */
    int createQueuePair(long id, int sendDepth) throws VerbsException;

    /** {@code rdma_connect} with the private data in the REQ and the RNR retry count the peer's QP uses (7: without end). */
    void connect(long id, byte[] privateData, int rnrRetryCount) throws VerbsException;

    /** {@code rdma_accept} with the private data in the REP. */
    void accept(long id, byte[] privateData, int rnrRetryCount) throws VerbsException;

    /** {@code rdma_reject} with private data in the REJ (empty for none). */
    void reject(long id, byte[] privateData) throws VerbsException;

    /** {@code rdma_disconnect}: the queue pair goes to the error state and flushes what is posted. */
    void disconnect(long id) throws VerbsException;

    /** Destroys the id and its queue pair; call once nothing posted on it is still to complete. */
    void destroy(long id) throws VerbsException;

    /**
     * Posts a receive of {@code length} bytes at {@code address} to the shared receive queue.
     *
     * @return false if the queue is full: nothing was posted
     */
    boolean postReceive(long wrId, long address, int length, int lkey) throws VerbsException;

    /** Posts a signaled Send; false if the send queue is full. */
    boolean postSend(long id, long wrId, long address, int length, int lkey) throws VerbsException;

    /** Posts a signaled RDMA Read of the peer's bytes into local memory; false if the send queue is full. */
    boolean postRead(long id, long wrId, long address, int length, int lkey, long remoteAddress, int rkey)
            throws VerbsException;

    /** Posts a signaled RDMA Write of local memory into the peer's; false if the send queue is full. */
    boolean postWrite(long id, long wrId, long address, int length, int lkey, long remoteAddress, int rkey)
            throws VerbsException;

    /**
     * Hands over the CM events, completions and asynchronous events that are there now.
     *
     * @return how many were handed over
     */
    int poll(Events events) throws VerbsException;

    /**
     * Asks for the next completion to make {@link #await} return ({@code ibv_req_notify_cq}); CM and
     * asynchronous events make it return whenever they are there. A completion that came before the
     * request does not: poll after requesting.
     */
    void requestNotification() throws VerbsException;

    /**
     * Blocks until a requested completion, a CM event or an asynchronous event may be there to
     * {@link #poll}, or {@link #interruptAwait} is called; it may also return for nothing. The one call,
     * with {@link #interruptAwait}, that another thread than the progress thread makes: the device's
     * notifier.
     */
    void await() throws VerbsException;

    /** Makes {@link #await} return at once, now or the next time it is called; any thread. */
    void interruptAwait();

    /** Releases the listener, the shared queues and the NIC; every id must be destroyed first. */
    @Override
    void close();
}
