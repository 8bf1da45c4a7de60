package org.rpcrdma4j.transport.oncrpc;

import java.io.EOFException;
import java.net.SocketAddress;
import java.nio.channels.CompletionHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntConsumer;
import java.util.function.LongSupplier;
import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcReply;
import org.dcache.oncrpc4j.rpc.RpcTransport;

/**
 * oncrpc4j's {@link ReplyQueue} with the same timeout semantics but a cheaper mechanism, which also
 * reports the XID of each call it times out so that the transport can release what the call holds
 * (its chunk memory) instead of waiting for an answer nobody will read.
 *
 * <p>oncrpc4j schedules a task on a {@code ScheduledThreadPoolExecutor} for every call that has a
 * timeout and cancels it when the reply comes: a lock, a heap insertion and removal, and often a
 * wake-up of the timer thread, per call. Here a call with a timeout is linked into a list of the
 * calls pending with a deadline, unlinked when its handler is called, and one timer wakes at the
 * earliest deadline, no more often than every {@link #GRANULARITY_NS}, fails the calls whose deadline
 * has passed and arms itself for the next; like Linux's RPC client timers it is coarse, so a call
 * may time out up to that much late. An idle client has no timer armed, and calls that keep coming
 * with the same timeout move the timer only when it fires.
 *
 * <p>As in oncrpc4j, a call that times out is taken out of the queue ({@link #get}) and, if it was
 * still there (no reply came first), its handler fails with a {@link TimeoutException} on the timer
 * thread; a reply arriving later finds nothing. Which of the two comes first decides: the handler is
 * called exactly once.
 */
final class TimeoutReplyQueue extends ReplyQueue {

    /** How much later than its timeout a call may fail, at most: the timer's resolution. */
    static final long GRANULARITY_NS = TimeUnit.MILLISECONDS.toNanos(10);

    private final IntConsumer onTimeout;
    private final LongSupplier ticker;
    private final ScheduledExecutorService timer;
    /** Guards the list of calls with a deadline, the timer's arming and {@link #shutDown}. */
    private final Object lock = new Object();
    /** The first and the last call in the list of calls pending with a deadline, in the order registered. */
    private Deadline head;
    private Deadline tail;
    /** When the timer is armed to fire, on the ticker's scale; {@code Long.MAX_VALUE} when it is not. */
    private long armedAt = Long.MAX_VALUE;
    private ScheduledFuture<?> armed;
    private boolean shutDown;

    /** @param onTimeout called with the XID of a call that timed out, on the timer thread */
    TimeoutReplyQueue(IntConsumer onTimeout) {
        this(onTimeout, System::nanoTime, timer());
    }

    private static ScheduledExecutorService timer() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1,
                DaemonThreads.named("rdma-rpc-client-timeouts"));
        timer.setRemoveOnCancelPolicy(true);
        return timer;
    }

    /**
     * @param onTimeout called with the XID of a call that timed out, on the timer thread
     * @param ticker    the time in nanoseconds, as {@link System#nanoTime}
     * @param timer     runs {@link #sweep} when the earliest deadline comes; the queue shuts it down
     */
    TimeoutReplyQueue(IntConsumer onTimeout, LongSupplier ticker, ScheduledExecutorService timer) {
        this.onTimeout = onTimeout;
        this.ticker = ticker;
        this.timer = timer;
    }

    /**
     * {@inheritDoc} A call with a timeout is linked into the deadline list; oncrpc4j's own queue gets
     * none, so it schedules nothing.
     *
     * @throws RejectedExecutionException for a call with a timeout once the queue is shut down, as oncrpc4j's
     */
    @Override
    public void registerKey(int xid, SocketAddress addr, CompletionHandler<RpcReply, RpcTransport> callback,
                            long timeout, TimeUnit timeoutUnit) throws EOFException {
        if (timeout <= 0 || timeoutUnit == null) {
            super.registerKey(xid, addr, callback, 0, null);
            return;
        }
        long deadline = ticker.getAsLong() + timeoutUnit.toNanos(timeout);
        Deadline pending = new Deadline(xid, callback, deadline, timeout, timeoutUnit);
        // In oncrpc4j's queue before the timer can see it, so that a timeout always finds it there.
        super.registerKey(xid, addr, pending, 0, null);
        synchronized (lock) {
            if (shutDown) {
                get(xid);
                throw new RejectedExecutionException("reply queue shut down");
            }
            link(pending);
            // Re-arm only for a deadline well before the armed one: calls with the same timeout never do.
            if (deadline < armedAt - GRANULARITY_NS) {
                arm(deadline);
            }
        }
    }

    /**
     * Fails the calls whose deadline has passed and arms the timer for the next; run by the timer.
     * Package-private for tests, which advance the ticker and call it themselves.
     */
    void sweep() {
        List<Deadline> expired = new ArrayList<>();
        synchronized (lock) {
            long now = ticker.getAsLong();
            long next = Long.MAX_VALUE;
            for (Deadline d = head; d != null; d = d.next) {
                if (d.deadline - now <= 0) {
                    expired.add(d);
                } else {
                    next = Math.min(next, d.deadline);
                }
            }
            expired.forEach(this::unlink);
            armed = null;
            armedAt = Long.MAX_VALUE;
            if (next != Long.MAX_VALUE && !shutDown) {
                arm(next);
            }
        }
        for (Deadline d : expired) {
            // Whoever takes the call out of the queue first answers it: a reply, or this timeout.
            CompletionHandler<RpcReply, RpcTransport> handler = get(d.xid);
            if (handler != null) {
                onTimeout.accept(d.xid);
                handler.failed(new TimeoutException("did not get a response within " + d.timeout + " " + d.unit), null);
            }
        }
    }

    /** @return how many calls are pending with a deadline (for tests) */
    int deadlines() {
        synchronized (lock) {
            int count = 0;
            for (Deadline d = head; d != null; d = d.next) {
                count++;
            }
            return count;
        }
    }

    /** Stops the timer; calls still pending no longer time out, and a call with a timeout is refused. */
    @Override
    public void shutdown() {
        synchronized (lock) {
            shutDown = true;
        }
        timer.shutdownNow();
        super.shutdown();
    }

    /** Under {@link #lock}. */
    private void arm(long deadline) {
        if (armed != null) {
            armed.cancel(false);
        }
        // Not before the granularity: a burst of calls with falling deadlines wakes the timer once.
        long now = ticker.getAsLong();
        long delay = Math.max(deadline - now, GRANULARITY_NS);
        armedAt = now + delay;
        armed = timer.schedule(this::sweep, delay, TimeUnit.NANOSECONDS);
    }

    /** Under {@link #lock}. */
    private void link(Deadline d) {
        if (d.answered) {
            return;
        }
        d.prev = tail;
        if (tail == null) {
            head = d;
        } else {
            tail.next = d;
        }
        tail = d;
        d.linked = true;
    }

    /** Under {@link #lock}; a call that was answered already is not linked, and one unlinked stays so. */
    private void unlink(Deadline d) {
        d.answered = true;
        if (!d.linked) {
            return;
        }
        if (d.prev == null) {
            head = d.next;
        } else {
            d.prev.next = d.next;
        }
        if (d.next == null) {
            tail = d.prev;
        } else {
            d.next.prev = d.prev;
        }
        d.prev = null;
        d.next = null;
        d.linked = false;
    }

    /** A call with a timeout: the caller's handler, which leaves the deadline list when it is called. */
    private final class Deadline implements CompletionHandler<RpcReply, RpcTransport> {

        private final int xid;
        private final CompletionHandler<RpcReply, RpcTransport> callback;
        private final long deadline;
        private final long timeout;
        private final TimeUnit unit;
        private Deadline prev;
        private Deadline next;
        private boolean linked;
        /** Whether it left the list (answered or timed out); it may do so before it is linked. */
        private boolean answered;

        Deadline(int xid, CompletionHandler<RpcReply, RpcTransport> callback, long deadline, long timeout,
                 TimeUnit unit) {
            this.xid = xid;
            this.callback = callback;
            this.deadline = deadline;
            this.timeout = timeout;
            this.unit = unit;
        }

        @Override
        public void completed(RpcReply reply, RpcTransport transport) {
            leave();
            callback.completed(reply, transport);
        }

        @Override
        public void failed(Throwable error, RpcTransport transport) {
            leave();
            callback.failed(error, transport);
        }

        private void leave() {
            synchronized (lock) {
                unlink(this);
            }
        }
    }
}
