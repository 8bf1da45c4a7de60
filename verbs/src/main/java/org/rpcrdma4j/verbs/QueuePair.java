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
        checkNotDestroyed();
        try {
            int rc = (int) Ibv.POST_SEND.invokeExact(context.postSend, qp, request.segment(), badRequest);
            Native.checkReturnedErrno("ibv_post_send", rc);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    /**
     * Posts a receive ({@code ibv_post_recv}). The request may be reused as soon as this returns;
     * the memory it names belongs to the device until its completion.
     *
     * @throws VerbsException ENOMEM when the receive queue is full
     */
    public void post(ReceiveWorkRequest request) throws VerbsException {
        checkNotDestroyed();
        try {
            int rc = (int) Ibv.POST_RECV.invokeExact(context.postRecv, qp, request.segment(), badRequest);
            Native.checkReturnedErrno("ibv_post_recv", rc);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }
}
