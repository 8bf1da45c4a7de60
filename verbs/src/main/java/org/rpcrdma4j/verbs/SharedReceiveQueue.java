package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A shared receive queue ({@code struct ibv_srq}, made by {@link ProtectionDomain#createSharedReceiveQueue}):
 * receives posted once for any number of queue pairs ({@link CmId#createQueuePair(ProtectionDomain,
 * QueuePairConfig, SharedReceiveQueue)}); each message takes the oldest posted receive whichever queue
 * pair it arrives on, and its completion names that queue pair ({@link WorkCompletions#qpNum}). Posting
 * calls the provider directly ({@code ibv_post_srq_recv} is static inline in verbs.h) and allocates
 * nothing.
 *
 * <p>Not thread-safe: post from one thread at a time. Destroy it after the queue pairs attached to it;
 * posting after {@link #close()} throws {@link IllegalStateException}.
 */
public final class SharedReceiveQueue implements AutoCloseable {
    private final VerbsContext context;
    private final MemorySegment srq;
    private final MemorySegment badRequest = Arena.ofAuto().allocate(ADDRESS);
    private final int capacity;
    private boolean closed;

    SharedReceiveQueue(VerbsContext context, MemorySegment srq, int capacity) {
        this.context = context;
        this.srq = srq.reinterpret(Structs.IBV_SRQ.byteSize());
        this.capacity = capacity;
    }

    /**
     * Creates the queue ({@code ibv_create_srq}), with no limit event armed.
     *
     * @param pd         the protection domain of the queue pairs that will use it
     * @param maxReceives receives posted at once, at least
     * @param maxSge     scatter/gather entries per receive, at least
     */
    static SharedReceiveQueue create(ProtectionDomain pd, int maxReceives, int maxSge) throws VerbsException {
        if (maxReceives < 1 || maxSge < 1) {
            throw new IllegalArgumentException("a shared receive queue needs room for a receive of one entry, not "
                    + maxReceives + " of " + maxSge);
        }
        var l = Structs.IBV_SRQ_INIT_ATTR;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = arena.allocate(Native.CAPTURE_STATE);
            MemorySegment init = arena.allocate(l);
            init.set(JAVA_INT, Structs.offset(l, "attr.max_wr"), maxReceives);
            init.set(JAVA_INT, Structs.offset(l, "attr.max_sge"), maxSge);
            MemorySegment srq = Native.checkPointer("ibv_create_srq",
                    (MemorySegment) Ibv.CREATE_SRQ.invokeExact(capture, pd.pointer(), init), capture);
            // The provider writes back what it granted, at least what was asked.
            return new SharedReceiveQueue(pd.context(), srq, init.get(JAVA_INT, Structs.offset(l, "attr.max_wr")));
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    MemorySegment pointer() {
        checkOpen();
        return srq;
    }

    /** Posting to a destroyed queue would touch freed native memory. */
    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the shared receive queue was destroyed");
        }
    }

    /** @return the receives it holds at once, as the device granted them (at least what was asked) */
    public int capacity() {
        return capacity;
    }

    /**
     * Posts a receive ({@code ibv_post_srq_recv}). The request may be reused as soon as this returns;
     * the memory it names belongs to the device until its completion.
     *
     * @return false if the queue is full (ENOMEM): nothing was posted
     * @throws VerbsException another refusal
     */
    public boolean tryPost(ReceiveWorkRequest request) throws VerbsException {
        checkOpen();
        int rc;
        try {
            rc = (int) ProviderOps.POST_SRQ_RECV.invokeExact(context.postSrqRecv, srq, request.segment(), badRequest);
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
        return QueuePair.posted("ibv_post_srq_recv", rc);
    }

    /**
     * Destroys the queue ({@code ibv_destroy_srq}); EBUSY while a queue pair is attached to it.
     * Receives still posted are dropped with it.
     */
    @Override
    public void close() throws VerbsException {
        if (closed) {
            return;
        }
        try {
            Native.checkReturnedErrno("ibv_destroy_srq", (int) Ibv.DESTROY_SRQ.invokeExact(srq));
            closed = true;
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }
}
