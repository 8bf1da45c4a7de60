package org.rpcrdma4j.transport.rw;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.rpcrdma4j.transport.Fabric;
import org.rpcrdma4j.transport.Registration;
import org.rpcrdma4j.xdr.Segment;

/**
 * Starts RDMA Reads and Writes on a fabric and calls back when each ends. An operation the fabric has
 * no room for (EAGAIN) waits here, in order, and is retried by {@link #retry}, which the fabric's
 * listener calls after every completion. Progress thread only.
 *
 * <p>Buffer ownership: the local bytes of an operation belong to the fabric until its callback.
 */
public final class RdmaQueue {

    private record Pending(boolean read, long peer, Registration local, long localOffset, Segment remote,
                           long context) {
    }

    private final Fabric fabric;
    private final Map<Long, Consumer<String>> callbacks = new HashMap<>();
    private final ArrayDeque<Pending> waiting = new ArrayDeque<>();
    private long nextContext;

    /** @param fabric the fabric to move bytes on */
    public RdmaQueue(Fabric fabric) {
        this.fabric = fabric;
    }

    /**
     * Reads a peer's bytes into registered memory.
     *
     * @param peer        the peer's handle
     * @param local       the target registration
     * @param localOffset where in it
     * @param remote      the peer's segment
     * @param done        called with {@code null} or the fabric's error, on the progress thread
     */
    public void read(long peer, Registration local, long localOffset, Segment remote, Consumer<String> done) {
        start(new Pending(true, peer, local, localOffset, remote, nextContext++), done);
    }

    /**
     * Writes registered memory into a peer's segment.
     *
     * @param peer        the peer's handle
     * @param local       the source registration
     * @param localOffset where in it
     * @param remote      the peer's segment; its length is the byte count
     * @param done        called with {@code null} or the fabric's error, on the progress thread
     */
    public void write(long peer, Registration local, long localOffset, Segment remote, Consumer<String> done) {
        start(new Pending(false, peer, local, localOffset, remote, nextContext++), done);
    }

    /**
     * Ends an operation.
     *
     * @param context the completed operation's context
     * @param error   what the fabric reported, or {@code null}
     */
    public void onRdmaCompleted(long context, String error) {
        Consumer<String> done = callbacks.remove(context);
        if (done != null) {
            done.accept(error);
        }
    }

    /** Starts the operations that wait for room, in order, until the fabric is full again. */
    public void retry() {
        while (!waiting.isEmpty() && post(waiting.peek())) {
            waiting.poll();
        }
    }

    private void start(Pending operation, Consumer<String> done) {
        callbacks.put(operation.context(), done);
        if (!waiting.isEmpty() || !post(operation)) {
            waiting.add(operation);
        }
    }

    private boolean post(Pending op) {
        return op.read() ? fabric.read(op.peer(), op.local(), op.localOffset(), op.remote(), op.context())
                : fabric.write(op.peer(), op.local(), op.localOffset(), op.remote(), op.context());
    }
}
