package org.rpcrdma4j.testbed.demo;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.rpcrdma4j.testbed.term.Progress;

/**
 * Moves a range of a file in calls of the server's transfer size, {@value #IN_FLIGHT} in flight: what the
 * Linux client keeps outstanding on one file by default.
 */
final class CallsInFlight {

    /** Calls in flight. */
    static final int IN_FLIGHT = 16;
    private static final long CALL_TIMEOUT_S = 60;

    /** Starts one call of a transfer; reports through {@code done} once it has finished. */
    @FunctionalInterface
    interface Transfer {
        void start(long at, int length, Done done) throws IOException;
    }

    /** Called on the reply thread with the bytes a call moved, or why it failed. */
    @FunctionalInterface
    interface Done {
        void accept(int length, Throwable error);
    }

    private CallsInFlight() {
    }

    /**
     * Moves {@code size} bytes in calls of {@code transfer} bytes and waits for the last.
     *
     * @throws IOException if a call failed or no reply came for {@value #CALL_TIMEOUT_S} s
     */
    static void move(long size, int transfer, String label, Progress progress, Transfer call)
            throws IOException, InterruptedException {
        Semaphore window = new Semaphore(IN_FLIGHT);
        AtomicLong moved = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (long at = 0; at < size && failure.get() == null; at += transfer) {
            if (!window.tryAcquire(CALL_TIMEOUT_S, TimeUnit.SECONDS)) {
                throw new IOException(label + ": no reply in " + CALL_TIMEOUT_S + " s");
            }
            progress.show(label, moved.get(), size);
            call.start(at, (int) Math.min(transfer, size - at), (length, error) -> {
                if (error != null) {
                    failure.compareAndSet(null, error);
                } else {
                    moved.addAndGet(length);
                }
                window.release();
            });
        }
        if (!window.tryAcquire(IN_FLIGHT, CALL_TIMEOUT_S, TimeUnit.SECONDS)) {
            throw new InterruptedIOException(label + ": no reply in " + CALL_TIMEOUT_S + " s");
        }
        progress.show(label, moved.get(), size);
        if (failure.get() != null) {
            throw new IOException(label + " failed: " + failure.get().getMessage(), failure.get());
        }
    }
}
