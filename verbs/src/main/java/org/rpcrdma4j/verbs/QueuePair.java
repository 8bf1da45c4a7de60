package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * An RC queue pair ({@code struct ibv_qp}) made by {@link CmId#createQueuePair}: RDMA-CM moves it
 * through its states, and {@link CmId#close()} destroys it. Posting calls the provider directly
 * and allocates nothing; the requests are the caller's reusable {@link SendWorkRequest} and
 * {@link ReceiveWorkRequest}.
 *
 * <p>Not thread-safe: post from one thread at a time. Posting after the id is closed throws
 * {@link IllegalStateException}.
 */
public final class QueuePair {

    /** {@code ENOMEM}: the queue is full. */
    private static final int ENOMEM = 12;

    private final VerbsContext context;
    private final MemorySegment qp;
    private final MemorySegment badRequest = Arena.ofAuto().allocate(ADDRESS);
    private final int qpNum;
    private final QueuePairConfig granted;
    private boolean destroyed;

    QueuePair(VerbsContext context, MemorySegment qp, QueuePairConfig granted) {
        this.context = context;
        this.qp = qp.reinterpret(Structs.IBV_QP.byteSize());
        this.qpNum = this.qp.get(JAVA_INT, Structs.offset(Structs.IBV_QP, "qp_num"));
        this.granted = granted;
    }

    /** Marks it destroyed by its id: posting to freed native memory would crash the JVM. */
    void destroyed() {
        destroyed = true;
    }

    private void checkNotDestroyed() {
        if (destroyed) {
            throw new IllegalStateException("queue pair " + qpNum + " was destroyed with its id");
        }
    }

    /** @return its number, which completions carry ({@link WorkCompletions#qpNum}) */
    public int qpNum() {
        return qpNum;
    }

    /** @return the sizes the device granted, at least those asked for */
    public QueuePairConfig granted() {
        return granted;
    }

    /**
     * Posts a send queue request ({@code ibv_post_send}): a Send, RDMA Write or Read, Send with
     * Invalidate, bind or invalidate. The request may be reused as soon as this returns.
     *
     * @throws VerbsException ENOMEM when the send queue is full, EINVAL for a malformed request
     */
    public void post(SendWorkRequest request) throws VerbsException {
        if (!tryPost(request)) {
            throw new VerbsException("ibv_post_send", ENOMEM);
        }
    }

    /**
     * Posts a send queue request as {@link #post(SendWorkRequest)} does, a full queue being an answer,
     * not an error: the data path waits for room without building an exception.
     *
     * @return false if the send queue is full (ENOMEM): nothing was posted
     * @throws VerbsException EINVAL for a malformed request, or another refusal
     */
    public boolean tryPost(SendWorkRequest request) throws VerbsException {
        checkNotDestroyed();
        int rc;
        try {
            rc = (int) ProviderOps.POST_SEND.invokeExact(context.postSend, qp, request.segment(), badRequest);
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
        return posted("ibv_post_send", rc);
    }

    /**
     * Posts a receive ({@code ibv_post_recv}). The request may be reused as soon as this returns;
     * the memory it names belongs to the device until its completion.
     *
     * @throws VerbsException ENOMEM when the receive queue is full
     */
    public void post(ReceiveWorkRequest request) throws VerbsException {
        if (!tryPost(request)) {
            throw new VerbsException("ibv_post_recv", ENOMEM);
        }
    }

    /**
     * Posts a receive as {@link #post(ReceiveWorkRequest)} does, a full queue being an answer.
     *
     * @return false if the receive queue is full (ENOMEM): nothing was posted
     * @throws VerbsException another refusal
     */
    public boolean tryPost(ReceiveWorkRequest request) throws VerbsException {
        checkNotDestroyed();
        int rc;
        try {
            rc = (int) ProviderOps.POST_RECV.invokeExact(context.postRecv, qp, request.segment(), badRequest);
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
        return posted("ibv_post_recv", rc);
    }

    /** Providers return the errno itself, some negated; ENOMEM (a full queue) is false. */
    static boolean posted(String call, int rc) throws VerbsException {
        if (rc == ENOMEM || rc == -ENOMEM) {
            return false;
        }
        Native.checkReturnedErrno(call, rc);
        return true;
    }
}
