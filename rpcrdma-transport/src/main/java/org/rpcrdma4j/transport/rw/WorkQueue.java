package org.rpcrdma4j.transport.rw;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.rpcrdma4j.fabric.FabricConnection;
import org.rpcrdma4j.fabric.FabricStatus;
import org.rpcrdma4j.fabric.MessageBuffers;
import org.rpcrdma4j.fabric.Registration;
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

    /** One piece of work; {@code handle} is the peer's handle a {@code SEND_INVALIDATING} invalidates. */
    private record Work(Kind kind, ByteBuffer message, int handle, Registration local, long localOffset,
                        Segment remote, long context) {
    }

    /** Work started: what to call back, and a send's message to give back then. */
    private record Started(Consumer<FabricStatus> done, ByteBuffer message) {
    }

    private final FabricConnection connection;
    private final MessageBuffers buffers;
    private final Map<Long, Started> started = new HashMap<>();
    private final ArrayDeque<Work> waiting = new ArrayDeque<>();
    private long nextContext;

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
        start(new Work(Kind.SEND, message, 0, null, 0, null, nextContext++), done);
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
        start(new Work(Kind.SEND_INVALIDATING, message, handle, null, 0, null, nextContext++), done);
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
        start(new Work(Kind.READ, null, 0, local, localOffset, remote, nextContext++), done);
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
        start(new Work(Kind.WRITE, null, 0, local, localOffset, remote, nextContext++), done);
    }

    /**
     * Ends a piece of work and starts what waits.
     *
     * @param context the completed work's context
     * @param status  its outcome
     */
    public void onCompleted(long context, FabricStatus status) {
        Started work = started.remove(context);
        if (work != null) {
            if (work.message() != null) {
                buffers.release(work.message());
            }
            work.done().accept(status);
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
            started.remove(work.context());
            if (work.message() != null) {
                buffers.release(work.message());
            }
        }
        waiting.clear();
    }

    private void start(Work work, Consumer<FabricStatus> done) {
        started.put(work.context(), new Started(done, work.message()));
        if (!waiting.isEmpty() || !post(work)) {
            waiting.add(work);
        }
    }

    private boolean post(Work work) {
        return switch (work.kind()) {
            case SEND -> connection.send(work.message(), work.context());
            case SEND_INVALIDATING -> connection.sendInvalidating(work.message(), work.handle(), work.context());
            case READ -> connection.read(work.local(), work.localOffset(), work.remote(), work.context());
            case WRITE -> connection.write(work.local(), work.localOffset(), work.remote(), work.context());
        };
    }
}
