package org.rpcrdma4j.fabric;

import java.util.concurrent.locks.LockSupport;

/**
 * Backs off in three steps while idle: spins for some cycles, then yields for some time, then parks
 * for a short time per cycle; a cycle with work starts over. A thread that parks is woken early by
 * {@link LockSupport#unpark}, which is how commands handed to it get run at once.
 */
public final class BackoffIdleStrategy implements IdleStrategy {

    /**
     * The progress loop's default: 100 spins, then yield for up to 1 ms, then park 50 µs at a time.
     * Yielding that long keeps the thread awake while a worker serves a call (a 1 MiB READ takes
     * about 100 µs), so the reply does not wait for the thread to be woken, which costs tens of
     * microseconds.
     *
     * @return a new strategy, for one thread
     */
    public static BackoffIdleStrategy forProgress() {
        return new BackoffIdleStrategy(100, 1_000_000, 50_000);
    }

    private final int spins;
    private final long yieldNanos;
    private final long parkNanos;
    private int idle;
    private long yieldingSince;

    /**
     * @param spins      idle cycles that spin before yielding
     * @param yieldNanos how long to yield before parking
     * @param parkNanos  how long each park lasts at most
     */
    public BackoffIdleStrategy(int spins, long yieldNanos, long parkNanos) {
        if (spins < 0 || yieldNanos < 0 || parkNanos <= 0) {
            throw new IllegalArgumentException("spins and yield time may not be negative, park time must be positive");
        }
        this.spins = spins;
        this.yieldNanos = yieldNanos;
        this.parkNanos = parkNanos;
    }

    @Override
    public void idle(int work) {
        if (work > 0) {
            idle = 0;
            return;
        }
        if (idle < spins) {
            idle++;
            Thread.onSpinWait();
        } else if (idle == spins) {
            idle++;
            yieldingSince = System.nanoTime();
            Thread.yield();
        } else if (System.nanoTime() - yieldingSince < yieldNanos) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(parkNanos);
        }
    }
}
