package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * An EFA SRD queue pair ({@code struct ibv_qp_ex}, made by {@link EfaDirectVerbs#createSrdQueuePair}):
 * reliable datagrams to any peer, delivered in any order. Sends and RDMA operations are posted in
 * batches through the provider's {@code wr_*} functions, read once from the struct:
 * {@link #start()}, then per request an operation ({@link #send}, {@link #rdmaRead}, {@link #rdmaWrite})
 * followed by its destination and its data ({@link #setDestination}, {@link #setSge} or
 * {@link #setInlineData}), then {@link #complete()} or {@link #abort()}. Receives are posted as on any
 * queue pair ({@code ibv_post_recv}); their completions carry the sender's queue pair number in
 * {@code src_qp} and, in {@code slid}, the number of the receiver's address handle to the sender
 * ({@link EfaDirectVerbs#addressHandleNumber}).
 *
 * <p>Not thread-safe: one thread posts. libefa holds the send queue's lock from {@code wr_start} to
 * {@code wr_complete} or {@code wr_abort}, so a batch must be ended on the thread that began it.
 */
public final class SrdQueuePair implements AutoCloseable {
    private static final long WR_ID = Structs.offset(Structs.IBV_QP_EX, "wr_id");
    private static final long WR_FLAGS = Structs.offset(Structs.IBV_QP_EX, "wr_flags");
    /** {@code ENOMEM}: the send or receive queue is full. */
    private static final int ENOMEM = 12;

    private final VerbsContext context;
    private final MemorySegment qpEx;
    private final int qpNum;
    private final SrdQueuePairConfig granted;
    private final MemorySegment badRequest = Arena.ofAuto().allocate(ADDRESS);
    private final MemorySegment start;
    private final MemorySegment complete;
    private final MemorySegment abort;
    private final MemorySegment send;
    private final MemorySegment rdmaRead;
    private final MemorySegment rdmaWrite;
    private final MemorySegment setUdAddr;
    private final MemorySegment setSge;
    private final MemorySegment setInlineData;
    private boolean inBatch;
    private boolean closed;

    SrdQueuePair(VerbsContext context, MemorySegment qpEx, SrdQueuePairConfig granted) {
        this.context = context;
        this.qpEx = qpEx.reinterpret(Structs.IBV_QP_EX.byteSize());
        this.qpNum = this.qpEx.get(JAVA_INT, Structs.offset(Structs.IBV_QP_EX, "qp_base.qp_num"));
        this.granted = granted;
        start = op("wr_start");
        complete = op("wr_complete");
        abort = op("wr_abort");
        send = op("wr_send");
        rdmaRead = op("wr_rdma_read");
        rdmaWrite = op("wr_rdma_write");
        setUdAddr = op("wr_set_ud_addr");
        setSge = op("wr_set_sge");
        setInlineData = op("wr_set_inline_data");
    }

    /** A provider function; NULL for an operation the queue pair was not created for. */
    private MemorySegment op(String name) {
        return qpEx.get(ADDRESS, Structs.offset(Structs.IBV_QP_EX, name));
    }

    /** @return its number, which peers send to and completions carry */
    public int qpNum() {
        return qpNum;
    }

    /** @return the sizes the device granted and the operations asked for */
    public SrdQueuePairConfig granted() {
        return granted;
    }

    /**
     * Takes the queue pair to RTS ({@code ibv_modify_qp} to INIT with the port, P_Key index 0 and Q_Key,
     * then RTR, then RTS with send PSN 0), leaving the device's RNR retry as it is.
     *
     * @param port the device port, from 1
     * @param qkey the Q_Key peers send with
     */
    public void activate(int port, int qkey) throws VerbsException {
        activate(port, qkey, 0, 0);
    }

    /**
     * As {@link #activate(int, int)}, and sets how often a send that finds no posted receive is retried
     * ({@code rnr_retry}, 7 meaning without end); for devices with {@link EfaDeviceAttributes#rnrRetry()}.
     */
    public void activate(int port, int qkey, int rnrRetry) throws VerbsException {
        if (rnrRetry < 0 || rnrRetry > 7) {
            throw new IllegalArgumentException("rnr_retry is 0 to 7, not " + rnrRetry);
        }
        activate(port, qkey, Constants.IBV_QP_RNR_RETRY, rnrRetry);
    }

    private void activate(int port, int qkey, int rtsExtraMask, int rnrRetry) throws VerbsException {
        var l = Structs.IBV_QP_ATTR;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(l);
            attr.set(JAVA_INT, Structs.offset(l, "qp_state"), Constants.IBV_QPS_INIT);
            attr.set(JAVA_SHORT, Structs.offset(l, "pkey_index"), (short) 0);
            attr.set(JAVA_BYTE, Structs.offset(l, "port_num"), (byte) port);
            attr.set(JAVA_INT, Structs.offset(l, "qkey"), qkey);
            modify(attr, Constants.IBV_QP_STATE | Constants.IBV_QP_PKEY_INDEX | Constants.IBV_QP_PORT
                    | Constants.IBV_QP_QKEY);
            attr.set(JAVA_INT, Structs.offset(l, "qp_state"), Constants.IBV_QPS_RTR);
            modify(attr, Constants.IBV_QP_STATE);
            attr.set(JAVA_INT, Structs.offset(l, "qp_state"), Constants.IBV_QPS_RTS);
            attr.set(JAVA_INT, Structs.offset(l, "sq_psn"), 0);
            attr.set(JAVA_BYTE, Structs.offset(l, "rnr_retry"), (byte) rnrRetry);
            modify(attr, Constants.IBV_QP_STATE | Constants.IBV_QP_SQ_PSN | rtsExtraMask);
        }
    }

    private void modify(MemorySegment attr, int mask) throws VerbsException {
        try {
            Native.checkReturnedErrno("ibv_modify_qp", (int) Ibv.MODIFY_QP.invokeExact(pointer(), attr, mask));
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    /** Begins a batch of send queue requests ({@code ibv_wr_start}). */
    public void start() {
        if (inBatch) {
            throw new IllegalStateException("a batch is already open on queue pair " + qpNum);
        }
        call(QueuePairExOps.WR_START, start);
        inBatch = true;
    }

    /**
     * Posts the batch ({@code ibv_wr_complete}); a batch that fails posts none of its requests.
     *
     * @return false if the send queue was full (ENOMEM): nothing was posted
     * @throws VerbsException EINVAL for a malformed request, or another refusal
     */
    public boolean complete() throws VerbsException {
        requireBatch();
        inBatch = false;
        int rc;
        try {
            rc = (int) QueuePairExOps.WR_COMPLETE.invokeExact(complete, qpEx);
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
        return QueuePair.posted("ibv_wr_complete", rc);
    }

    /** Drops the batch, posting none of its requests ({@code ibv_wr_abort}). */
    public void abort() {
        requireBatch();
        inBatch = false;
        call(QueuePairExOps.WR_ABORT, abort);
    }

    /** Adds a Send ({@code ibv_wr_send}); its destination and data follow. */
    public void send(long wrId, boolean signaled) {
        request(wrId, signaled);
        call(QueuePairExOps.WR_SEND, send);
    }

    /**
     * Adds an RDMA Read of the peer's memory into this side's ({@code ibv_wr_rdma_read}); the peer's
     * address handle and queue pair follow ({@link #setDestination}), then the local memory ({@link #setSge}).
     *
     * @throws IllegalStateException if the queue pair was not created with RDMA Read
     */
    public void rdmaRead(long wrId, boolean signaled, int rkey, long remoteAddress) {
        request(wrId, signaled);
        try {
            QueuePairExOps.WR_RDMA_READ.invokeExact(present(rdmaRead, "RDMA Read"), qpEx, rkey, remoteAddress);
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    /**
     * Adds an RDMA Write of this side's memory into the peer's ({@code ibv_wr_rdma_write}).
     *
     * @throws IllegalStateException if the queue pair was not created with RDMA Write
     */
    public void rdmaWrite(long wrId, boolean signaled, int rkey, long remoteAddress) {
        request(wrId, signaled);
        try {
            QueuePairExOps.WR_RDMA_WRITE.invokeExact(present(rdmaWrite, "RDMA Write"), qpEx, rkey, remoteAddress);
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    /** Names the current request's peer: its address handle, queue pair and Q_Key ({@code ibv_wr_set_ud_addr}). */
    public void setDestination(AddressHandle peer, int remoteQpn, int remoteQkey) {
        requireBatch();
        try {
            QueuePairExOps.WR_SET_UD_ADDR.invokeExact(setUdAddr, qpEx, peer.pointer(), remoteQpn, remoteQkey);
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    /** Gives the current request one range of registered memory ({@code ibv_wr_set_sge}). */
    public void setSge(int lkey, long address, int length) {
        requireBatch();
        try {
            QueuePairExOps.WR_SET_SGE.invokeExact(setSge, qpEx, lkey, address, length);
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    /**
     * Gives the current Send its bytes inline ({@code ibv_wr_set_inline_data}): copied now, so the
     * memory need not be registered and may be reused at once; at most {@code maxInlineData} bytes.
     */
    public void setInlineData(MemorySegment data) {
        requireBatch();
        if (data.byteSize() > granted.queues().maxInlineData()) {
            throw new IllegalArgumentException(data.byteSize() + " bytes inline, the queue pair takes "
                    + granted.queues().maxInlineData());
        }
        try {
            QueuePairExOps.WR_SET_INLINE_DATA.invokeExact(setInlineData, qpEx, data, data.byteSize());
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    /**
     * Posts a receive ({@code ibv_post_recv}), as {@link QueuePair#tryPost(ReceiveWorkRequest)} does.
     *
     * @return false if the receive queue is full (ENOMEM): nothing was posted
     */
    public boolean tryPost(ReceiveWorkRequest request) throws VerbsException {
        int rc;
        try {
            rc = (int) ProviderOps.POST_RECV.invokeExact(context.postRecv, pointer(), request.segment(), badRequest);
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
        return QueuePair.posted("ibv_post_recv", rc);
    }

    /**
     * Posts a receive, a full queue being an error.
     *
     * @throws VerbsException ENOMEM when the receive queue is full
     */
    public void post(ReceiveWorkRequest request) throws VerbsException {
        if (!tryPost(request)) {
            throw new VerbsException("ibv_post_recv", ENOMEM);
        }
    }

    /** Destroys it ({@code ibv_destroy_qp}); an open batch is abandoned with it. */
    @Override
    public void close() throws VerbsException {
        if (closed) {
            return;
        }
        try {
            Native.checkReturnedErrno("ibv_destroy_qp", (int) Ibv.DESTROY_QP.invokeExact(qpEx));
            closed = true;
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    /** The {@code ibv_qp} at the start of the {@code ibv_qp_ex}; freed once destroyed. */
    private MemorySegment pointer() {
        if (closed) {
            throw new IllegalStateException("queue pair " + qpNum + " was destroyed");
        }
        return qpEx;
    }

    /** Starts a request: the provider reads its {@code wr_id} and flags from the struct. */
    private void request(long wrId, boolean signaled) {
        requireBatch();
        qpEx.set(JAVA_LONG, WR_ID, wrId);
        qpEx.set(JAVA_INT, WR_FLAGS, signaled ? Constants.IBV_SEND_SIGNALED : 0);
    }

    /** Outside a batch libefa holds no lock and has no request to add to. */
    private void requireBatch() {
        pointer();
        if (!inBatch) {
            throw new IllegalStateException("no batch is open on queue pair " + qpNum + ": start() first");
        }
    }

    private static MemorySegment present(MemorySegment function, String operation) {
        if (function.equals(MemorySegment.NULL)) {
            throw new IllegalStateException("the queue pair was not created for " + operation);
        }
        return function;
    }

    /** Calls a provider function that takes only the queue pair. */
    private void call(MethodHandle handle, MemorySegment function) {
        try {
            handle.invokeExact(function, pointer());
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }
}
