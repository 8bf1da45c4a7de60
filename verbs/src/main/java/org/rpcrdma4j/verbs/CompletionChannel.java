package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * A completion channel ({@code struct ibv_comp_channel}): a file descriptor that becomes readable
 * when a completion queue armed by {@link CompletionQueue#requestNotify} gets a completion, so an
 * idle progress thread can sleep in {@link FdPoller} instead of polling.
 *
 * <p>The descriptor is non-blocking: {@link #getEvent()} returns null instead of waiting. Not
 * thread-safe: one progress thread owns the channel and its queues.
 */
public final class CompletionChannel implements AutoCloseable {
    private final Arena arena = Arena.ofShared();
    private final MemorySegment channel;
    private final MemorySegment capture = arena.allocate(Native.CAPTURE_STATE);
    private final MemorySegment cqOut = arena.allocate(ADDRESS);
    private final MemorySegment contextOut = arena.allocate(ADDRESS);
    private final List<CompletionQueue> queues = new ArrayList<>();
    private final int fd;
    private boolean closed;

    private CompletionChannel(MemorySegment channel) {
        this.channel = channel.reinterpret(Structs.IBV_COMP_CHANNEL.byteSize());
        this.fd = this.channel.get(JAVA_INT, Structs.offset(Structs.IBV_COMP_CHANNEL, "fd"));
    }

    static CompletionChannel create(VerbsContext context) throws VerbsException {
        MemorySegment pointer;
        try (Arena call = Arena.ofConfined()) {
            MemorySegment capture = call.allocate(Native.CAPTURE_STATE);
            pointer = Native.checkPointer("ibv_create_comp_channel",
                    (MemorySegment) Ibv.CREATE_COMP_CHANNEL.invokeExact(capture, context.pointer()), capture);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
        CompletionChannel channel = new CompletionChannel(pointer);
        try {
            LibC.setNonBlocking(channel.fd);
        } catch (VerbsException e) {
            channel.close();
            throw e;
        }
        return channel;
    }

    MemorySegment pointer() {
        return channel;
    }

    void attach(CompletionQueue queue) {
        queues.add(queue);
    }

    void detach(CompletionQueue queue) {
        queues.remove(queue);
    }

    /** @return the descriptor to wait on for readability ({@link FdPoller#register(int)}) */
    public int fd() {
        return fd;
    }

    /**
     * Takes one notification ({@code ibv_get_cq_event}) without blocking. The queue counts it
     * until {@link CompletionQueue#ackEvents()}; it is disarmed until
     * {@link CompletionQueue#requestNotify} again.
     *
     * @return the queue that was notified, or null if no notification is pending
     */
    public CompletionQueue getEvent() throws VerbsException {
        if (closed) {
            throw new IllegalStateException("the completion channel was destroyed");
        }
        try {
            int rc = (int) Ibv.GET_CQ_EVENT.invokeExact(capture, channel, cqOut, contextOut);
            if (rc != 0) {
                int errno = Native.errno(capture);
                if (errno == Constants.EAGAIN || errno == Constants.EINTR) {
                    return null;
                }
                throw new VerbsException("ibv_get_cq_event", errno);
            }
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
        long cq = cqOut.get(ADDRESS, 0).address();
        for (CompletionQueue queue : queues) {
            if (queue.pointer().address() == cq) {
                queue.eventReceived();
                return queue;
            }
        }
        throw new IllegalStateException("notification for a completion queue not made with this channel");
    }

    /** Destroys it ({@code ibv_destroy_comp_channel}); EBUSY while a queue still uses it. */
    @Override
    public void close() throws VerbsException {
        if (closed) {
            return;
        }
        try {
            Native.checkReturnedErrno("ibv_destroy_comp_channel",
                    (int) Ibv.DESTROY_COMP_CHANNEL.invokeExact(channel));
            closed = true;
            arena.close();
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }
}
