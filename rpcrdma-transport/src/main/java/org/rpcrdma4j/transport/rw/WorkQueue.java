package org.rpcrdma4j.transport.rw;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.function.Consumer;
import org.rpcrdma4j.fabric.FabricConnection;
import org.rpcrdma4j.fabric.FabricStatus;
import org.rpcrdma4j.fabric.MessageBuffers;
import org.rpcrdma4j.fabric.Registration;
import org.rpcrdma4j.fabric.WorkTokens;
import org.rpcrdma4j.xdr.Segment;

/**
 * The sends, RDMA Reads and RDMA Writes of one connection, each called back when it ends. Work the
 * fabric has no room for (EAGAIN) waits here, in order, and is started again after every completion:
 * a Send never overtakes the RDMA Writes queued before it (RFC 8166 §3.4.6: chunk data before the
 * reply). The wait is bounded by the credits, since everything queued belongs to a call within the
 * credit limit or answers one. Progress thread only.
 *
 * <p>Buffer ownership: the bytes of queued work belong to the fabric until its callback. A message
 * sent belongs to the queue from then on: it goes back to the fabric's {@link MessageBuffers} once its
 * send has ended, or at {@link #close} if it was never posted.
 */
public final class WorkQueue {

    private enum Kind { SEND, SEND_INVALIDATING, READ, WRITE }

    /**
     * One piece of work, reused once it has ended; {@code handle} is the peer's handle a
     * {@code SEND_INVALIDATING} invalidates, {@code message} a send's message to give back when it ends.
     */
    private static final class Work {
        private Kind kind;
        private ByteBuffer message;
        private int handle;
        private Registration local;
        private long localOffset;
        private Segment remote;
        private Consumer<FabricStatus> done;
        private long context;
    }

    private final FabricConnection connection;
    private final MessageBuffers buffers;
    /** The work started, by its context: posted, or waiting in {@link #waiting}. */
    private final WorkTokens<Work> started = new WorkTokens<>(Work::new);
    private final ArrayDeque<Work> waiting = new ArrayDeque<>();

    /**
     * @param connection the connection to work on
     * @param buffers    where the messages sent go back to: the fabric's message buffers
     */
    public WorkQueue(FabricConnection connection, MessageBuffers buffers) {
        this.connection = connection;
        this.buffers = buffers;
    }

    /**
     * Sends a message.
     *
     * @param message the message, owned by the queue from now on
     * @param done    called with the outcome, on the progress thread
     */
    public void send(ByteBuffer message, Consumer<FabricStatus> done) {
        start(Kind.SEND, message, 0, null, 0, null, done);
    }

    /**
     * Sends a message that invalidates one of the peer's handles on arrival
     * ({@link FabricConnection#sendInvalidating}).
     *
     * @param message the message, owned by the queue from now on
     * @param handle  the peer's handle to invalidate
     * @param done    called with the outcome, on the progress thread
     */
    public void sendInvalidating(ByteBuffer message, int handle, Consumer<FabricStatus> done) {
        start(Kind.SEND_INVALIDATING, message, handle, null, 0, null, done);
    }

    /**
     * Reads the peer's bytes into registered memory.
     *
     * @param local       the target registration
     * @param localOffset where in it
     * @param remote      the peer's segment
     * @param done        called with the outcome, on the progress thread
     */
    public void read(Registration local, long localOffset, Segment remote, Consumer<FabricStatus> done) {
        start(Kind.READ, null, 0, local, localOffset, remote, done);
    }

    /**
     * Writes registered memory into the peer's segment.
     *
     * @param local       the source registration
     * @param localOffset where in it
     * @param remote      the peer's segment; its length is the byte count
     * @param done        called with the outcome, on the progress thread
     */
    public void write(Registration local, long localOffset, Segment remote, Consumer<FabricStatus> done) {
        start(Kind.WRITE, null, 0, local, localOffset, remote, done);
    }

    /**
     * Ends a piece of work and starts what waits.
     *
     * @param context the completed work's context
     * @param status  its outcome
     */
    public void onCompleted(long context, FabricStatus status) {
        Work work = started.remove(context);
        if (work != null) {
            // Read before the callback, which may start work that reuses the record.
            ByteBuffer message = work.message;
            Consumer<FabricStatus> done = work.done;
            clear(work);
            if (message != null) {
                buffers.release(message);
            }
            done.accept(status);
        }
        while (!waiting.isEmpty() && post(waiting.peek())) {
            waiting.poll();
        }
    }

    /** @return whether nothing is in progress or waiting */
    public boolean idle() {
        return started.isEmpty();
    }

    /**
     * Gives back the messages of the work that waits, which will never be posted: the connection has
     * closed. Their callbacks are not called; what is posted still completes (flushed).
     */
    public void close() {
        for (Work work : waiting) {
            started.remove(work.context);
            if (work.message != null) {
                buffers.release(work.message);
            }
            clear(work);
        }
        waiting.clear();
    }

    private void start(Kind kind, ByteBuffer message, int handle, Registration local, long localOffset,
                       Segment remote, Consumer<FabricStatus> done) {
        long context = started.take();
        Work work = started.record(context);
        work.kind = kind;
        work.message = message;
        work.handle = handle;
        work.local = local;
        work.localOffset = localOffset;
        work.remote = remote;
        work.done = done;
        work.context = context;
        if (!waiting.isEmpty() || !post(work)) {
            waiting.add(work);
        }
    }

    /** Lets go of what an ended piece of work held, for the garbage collector. */
    private static void clear(Work work) {
        work.message = null;
        work.local = null;
        work.remote = null;
        work.done = null;
    }

    private boolean post(Work work) {
        return switch (work.kind) {
            case SEND -> connection.send(work.message, work.context);
            case SEND_INVALIDATING -> connection.sendInvalidating(work.message, work.handle, work.context);
            case READ -> connection.read(work.local, work.localOffset, work.remote, work.context);
            case WRITE -> connection.write(work.local, work.localOffset, work.remote, work.context);
        };
    }
}
