package org.rpcrdma4j.efa.device.conformance;

import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The one bound the kit puts on waiting: long enough that no device, however slow the machine,
 * reaches it when it works, so that a test fails on it only when something hangs. No assertion
 * depends on how long anything takes.
 */
public final class HangGuard {

    /** How long a test waits for anything before it fails. */
    public static final long SECONDS = 30;

    private final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(SECONDS);

    /** Starts a wait: the guard expires {@link #SECONDS} from now. */
    public HangGuard() {
    }

    /**
     * Fails the test if the guard has expired.
     *
     * @param waitingFor what the test waits for, for the failure message
     * @throws AssertionError once {@link #SECONDS} have passed since the guard was made
     */
    public void check(Supplier<String> waitingFor) {
        if (System.nanoTime() - deadlineNs > 0) {
            throw new AssertionError(waitingFor.get() + ": not reached within " + SECONDS + " s (hang guard)");
        }
    }
}
