package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A completion queue ({@code struct ibv_cq}). {@link #poll} and {@link #requestNotify} call the
 * provider directly, without allocating; the usual progress loop is: poll until empty, request a
 * notification, poll once more (a completion may have arrived in between), then wait on the
 * channel's descriptor, take the event and ack it in batches.
 *
 * <p>Not thread-safe: one progress thread polls it.
 */
public final class CompletionQueue implements AutoCloseable {
    private final VerbsContext context;
    private final CompletionChannel channel;
    private final MemorySegment cq;
    private final int capacity;
    private int unackedEvents;
    private boolean closed;

    CompletionQueue(VerbsContext context, CompletionChannel channel, MemorySegment cq) {
        this.context = context;
        this.channel = channel;
        this.cq = cq.reinterpret(Structs.IBV_CQ.byteSize());
        this.capacity = this.cq.get(JAVA_INT, Structs.offset(Structs.IBV_CQ, "cqe"));
    }

    static CompletionQueue create(VerbsContext context, int entries, CompletionChannel channel, int vector)
            throws VerbsException {
        if (entries < 1) {
            throw new IllegalArgumentException("a completion queue needs at least one entry, not " + entries);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = arena.allocate(Native.CAPTURE_STATE);
            MemorySegment channelPointer = channel == null ? MemorySegment.NULL : channel.pointer();
            MemorySegment cq = Native.checkPointer("ibv_create_cq", (MemorySegment) Ibv.CREATE_CQ.invokeExact(
                    capture, context.pointer(), entries, MemorySegment.NULL, channelPointer, vector), capture);
            CompletionQueue queue = new CompletionQueue(context, channel, cq);
            if (channel != null) {
                channel.attach(queue);
            }
            return queue;
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    MemorySegment pointer() {
        checkOpen();
        return cq;
    }

    /** Polling a destroyed queue would touch freed native memory. */
    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the completion queue was destroyed");
        }
    }

    /** @return the entries it holds, as the device sized it (at least what was asked) */
    public int capacity() {
        return capacity;
    }

    /**
     * Moves up to {@code into.capacity()} completions into {@code into} ({@code ibv_poll_cq}).
     *
     * @param into where the completions go, overwritten from index 0
     * @return how many arrived, 0 if the queue is empty
     */
    public int poll(WorkCompletions into) throws VerbsException {
        checkOpen();
        try {
            int n = (int) ProviderOps.POLL_CQ.invokeExact(context.pollCq, cq, into.capacity(), into.segment());
            if (n < 0) {
                throw new VerbsException("ibv_poll_cq", -n);
            }
            into.filled(n);
            return n;
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    /**
     * Arms the queue ({@code ibv_req_notify_cq}): its channel becomes readable at the next
     * completion (or next solicited one). One notification per arming.
     *
     * @param solicitedOnly notify only for receives of solicited sends and for errors
     */
    public void requestNotify(boolean solicitedOnly) throws VerbsException {
        checkOpen();
        try {
            int rc = (int) ProviderOps.REQ_NOTIFY_CQ.invokeExact(context.reqNotifyCq, cq, solicitedOnly ? 1 : 0);
            Native.checkReturnedErrno("ibv_req_notify_cq", rc);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    void eventReceived() {
        unackedEvents++;
    }

    /** @return notifications taken by {@link CompletionChannel#getEvent()} and not yet acked */
    public int unackedEvents() {
        return unackedEvents;
    }

    /** Acks the notifications taken so far ({@code ibv_ack_cq_events}, which takes a lock: batch it). */
    public void ackEvents() {
        if (unackedEvents == 0) {
            return;
        }
        try {
            Ibv.ACK_CQ_EVENTS.invokeExact(cq, unackedEvents);
            unackedEvents = 0;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }

    /**
     * Acks what is pending and destroys the queue ({@code ibv_destroy_cq}); EBUSY while a queue
     * pair still uses it.
     */
    @Override
    public void close() throws VerbsException {
        if (closed) {
            return;
        }
        ackEvents();
        try {
            Native.checkReturnedErrno("ibv_destroy_cq", (int) Ibv.DESTROY_CQ.invokeExact(cq));
            closed = true;
            if (channel != null) {
                channel.detach(this);
            }
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }
}
