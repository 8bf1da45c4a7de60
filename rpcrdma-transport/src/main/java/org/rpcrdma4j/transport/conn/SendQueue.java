package org.rpcrdma4j.transport.conn;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.rpcrdma4j.transport.Channel;
import org.rpcrdma4j.transport.Fabric;
import org.rpcrdma4j.transport.RdmaTransportException;

/**
 * Sends on a fabric and calls back when each send ends. A send the fabric has no room for (EAGAIN)
 * waits here and is retried when an earlier send completes; the wait is bounded by the credits, since
 * every message sent answers or is a call within the credit limit. Progress thread only.
 *
 * <p>Buffer ownership: a buffer given to {@link #send} belongs to the fabric until its callback.
 */
final class SendQueue {

    private record Pending(Channel channel, long peer, ByteBuffer message, long context) {
    }

    private static final Consumer<RdmaTransportException> IGNORE = error -> { };

    private final Fabric fabric;
    private final Map<Long, Consumer<RdmaTransportException>> callbacks = new HashMap<>();
    private final ArrayDeque<Pending> waiting = new ArrayDeque<>();
    private long nextContext;

    SendQueue(Fabric fabric) {
        this.fabric = fabric;
    }

    /**
     * @param channel the stream
     * @param peer    the receiver
     * @param message the message, owned by the fabric from now on
     * @param done    called with {@code null} on success or the error, on the progress thread
     */
    void send(Channel channel, long peer, ByteBuffer message, Consumer<RdmaTransportException> done) {
        long context = nextContext++;
        callbacks.put(context, done == null ? IGNORE : done);
        if (!waiting.isEmpty() || !fabric.send(channel, peer, message, context)) {
            waiting.add(new Pending(channel, peer, message, context));
        }
    }

    /**
     * Ends a send and retries those that wait.
     *
     * @param context the context of the completed send
     * @param error   what the fabric reported, or {@code null}
     */
    void onSendCompleted(long context, String error) {
        Consumer<RdmaTransportException> done = callbacks.remove(context);
        if (done != null) {
            done.accept(error == null ? null
                    : new RdmaTransportException(RdmaTransportException.Scope.CALL, "send failed: " + error));
        }
        retry();
    }

    /** Sends what waits for room, in order, until the fabric is full again. */
    void retry() {
        while (!waiting.isEmpty()) {
            Pending next = waiting.peek();
            if (!fabric.send(next.channel(), next.peer(), next.message(), next.context())) {
                break;
            }
            waiting.poll();
        }
    }

    /** @return whether no send is in progress or waiting */
    boolean idle() {
        return callbacks.isEmpty();
    }
}
