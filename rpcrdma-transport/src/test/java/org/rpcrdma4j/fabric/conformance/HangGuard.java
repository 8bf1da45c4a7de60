package org.rpcrdma4j.fabric.conformance;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The one bound the kit's tests put on waiting: long enough that no fabric, however slow the machine,
 * reaches it when it works, so that a test fails on it only when something hangs. No assertion
 * depends on how long anything takes.
 */
public final class HangGuard {

    /** How long a test waits for anything before it fails. */
    public static final long SECONDS = 30;

    private HangGuard() {
    }

    /**
     * Polls a condition the transport or a fabric reaches on its own threads, failing the test after
     * {@link #SECONDS}.
     *
     * @param condition what to wait for
     * @throws InterruptedException if interrupted while waiting
     */
    public static void waitFor(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SECONDS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not reached (hang guard)");
            }
            Thread.sleep(1);
        }
    }
}
