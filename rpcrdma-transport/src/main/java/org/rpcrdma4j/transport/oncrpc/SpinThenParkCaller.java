package org.rpcrdma4j.transport.oncrpc;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.channels.CompletionHandler;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcReply;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.XdrAble;

/**
 * Blocking calls whose caller spins for a bounded time before it parks, for callers that make one
 * call at a time and want the reply as soon as it comes.
 *
 * <p>oncrpc4j's blocking {@code RpcCall.call(procedure, args, result, timeout, unit)} waits in
 * {@code CompletableFuture.get()}, which parks the caller at once; the thread that delivers the
 * reply then has to wake it, which on Linux costs several microseconds (a futex wake, then the
 * scheduler), more than the rest of a small call over RDMA. {@link #call} makes the same call
 * through oncrpc4j's asynchronous {@code RpcCall.call} and waits for it itself: it polls for up to
 * the spin time given, then parks until the reply or the failure comes, so an idle caller uses no
 * CPU. A spin only pays when the reply usually comes within it and the machine has a core to spare
 * for the spinning caller; the CPU it burns counts against the call.
 *
 * <p>It works on any oncrpc4j transport, TCP too. Results, timeouts and failures are oncrpc4j's: the
 * result is decoded where oncrpc4j decodes it (on the thread that delivers the reply), and failures
 * are thrown as {@code RpcCall.call} throws them. Thread-safe: one instance serves any number of
 * callers.
 */
public final class SpinThenParkCaller {

    private final long spinNanos;

    /**
     * @param spin how long a caller polls for its reply before it parks; zero parks at once, as
     *             oncrpc4j's blocking call does
     */
    public SpinThenParkCaller(Duration spin) {
        if (spin.isNegative()) {
            throw new IllegalArgumentException("negative spin: " + spin);
        }
        this.spinNanos = spin.toNanos();
    }

    /**
     * Makes a call and waits for its result, as {@code call.call(procedure, args, result, timeout, unit)}.
     *
     * @param call      the program, version and credential to call, on its transport
     * @param procedure the procedure number
     * @param args      the arguments
     * @param result    decoded from the reply
     * @param timeout   how long to wait for the reply; zero or less waits for ever
     * @param unit      the unit of {@code timeout}; {@code null} waits for ever
     * @throws TimeoutException if no reply came within the timeout
     * @throws IOException      if the call could not be sent, was rejected, failed or was interrupted
     *                          ({@link InterruptedIOException}), as from oncrpc4j's blocking call
     */
    public void call(RpcCall call, int procedure, XdrAble args, XdrAble result, long timeout, TimeUnit unit)
            throws IOException, TimeoutException {
        Waiter waiter = new Waiter(result);
        call.call(procedure, args, waiter, timeout, unit);
        Throwable failure = waiter.await(spinNanos);
        if (failure == null) {
            return;
        }
        // oncrpc4j's blocking call throws the root cause of what failed the call.
        Throwable cause = failure;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        if (cause instanceof IOException io) {
            throw io;
        }
        if (cause instanceof TimeoutException timedOut) {
            throw timedOut;
        }
        throw new IOException(cause);
    }

    /** One call's handler and its caller's wait. */
    private static final class Waiter implements CompletionHandler<RpcReply, RpcTransport> {

        /** The outcome of a call that succeeded. */
        private static final Object DONE = new Object();

        private final XdrAble result;
        private final Thread caller = Thread.currentThread();
        /** {@code null} until the call ends, then {@link #DONE} or what failed it. */
        private volatile Object outcome;
        /** Set before the caller parks: whoever ends the call must then unpark it. */
        private volatile boolean parking;

        Waiter(XdrAble result) {
            this.result = result;
        }

        @Override
        public void completed(RpcReply reply, RpcTransport transport) {
            Object decoded;
            try {
                reply.getReplyResult(result);
                decoded = DONE;
            } catch (IOException | RuntimeException e) {
                decoded = e;
            }
            end(decoded);
        }

        @Override
        public void failed(Throwable error, RpcTransport transport) {
            end(error);
        }

        private void end(Object how) {
            outcome = how;
            // Both fields are volatile: either the caller sees the outcome before it parks, or this sees it parking.
            if (parking) {
                LockSupport.unpark(caller);
            }
        }

        /** @return {@code null} if the call succeeded, else what failed it */
        Throwable await(long spinNanos) throws InterruptedIOException {
            if (Thread.interrupted()) {
                throw new InterruptedIOException("interrupted before the reply came");
            }
            long start = System.nanoTime();
            while (outcome == null && System.nanoTime() - start < spinNanos) {
                Thread.onSpinWait();
            }
            if (outcome == null) {
                parking = true;
                while (outcome == null) {
                    LockSupport.park(this);
                    if (outcome == null && Thread.interrupted()) {
                        throw new InterruptedIOException("interrupted before the reply came");
                    }
                }
            }
            return outcome == DONE ? null : (Throwable) outcome;
        }
    }
}
