package org.rpcrdma4j.fabric;

import java.util.Objects;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one progress thread of a fabric: it runs a {@link ProgressAgent}'s duty cycles and, after each,
 * tells its {@link IdleStrategy} the work done. When the agent has been {@linkplain ProgressAgent#quiet
 * quiet} for {@code quietSpinNanos} (nothing can happen until another thread hands work over or the
 * device signals), the thread waits in its {@link Waiter} until {@link #wake} or the device wakes it:
 * a call whose only work left is on another thread (a worker's reply) costs the progress thread that
 * spin at most, and one answered within it saves the thread's wake-up. The EFA fabric waits by parking;
 * the RC fabric arms its completion queue and waits in {@code poll(2)}.
 */
public final class ProgressRunner implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ProgressRunner.class);

    /** How the progress thread waits to be woken, and how another thread wakes it. */
    public interface Waiter {

        /** Parks the thread; {@link #wake} unparks it. */
        Waiter PARKING = new Waiter() {
            @Override
            public void await() {
                LockSupport.park(this);
            }

            @Override
            public void wake(Thread runner) {
                LockSupport.unpark(runner);
            }
        };

        /**
         * Waits on the progress thread until woken; it may return early (a wake-up given before it
         * was called returns at once, as {@link LockSupport#park} does for an earlier unpark).
         *
         * @throws Exception a failure the fabric cannot go on from
         */
        void await() throws Exception;

        /**
         * Wakes the progress thread if it waits, or makes its next wait return at once; any thread.
         *
         * @param runner the progress thread
         */
        void wake(Thread runner);
    }

    private final ProgressAgent agent;
    private final IdleStrategy idleStrategy;
    private final long quietSpinNanos;
    private final Waiter waiter;
    private final Thread thread;
    private volatile boolean running = true;

    private ProgressRunner(String name, ProgressAgent agent, IdleStrategy idleStrategy, long quietSpinNanos,
                           Waiter waiter) {
        this.agent = Objects.requireNonNull(agent, "agent");
        this.idleStrategy = Objects.requireNonNull(idleStrategy, "idleStrategy");
        if (quietSpinNanos < 0) {
            throw new IllegalArgumentException("quietSpinNanos " + quietSpinNanos + " < 0");
        }
        this.quietSpinNanos = quietSpinNanos;
        this.waiter = Objects.requireNonNull(waiter, "waiter");
        this.thread = new Thread(this::run, name);
        this.thread.setDaemon(true);
    }

    /**
     * Starts a progress thread.
     *
     * @param name           the thread's name
     * @param agent          its work
     * @param idleStrategy   told the work of each cycle unless the thread waits; this runner's only
     * @param quietSpinNanos how long the agent must be quiet before the thread waits; 0 to wait at once
     * @param waiter         how it waits and is woken
     * @return the running runner
     */
    public static ProgressRunner start(String name, ProgressAgent agent, IdleStrategy idleStrategy,
                                       long quietSpinNanos, Waiter waiter) {
        ProgressRunner runner = new ProgressRunner(name, agent, idleStrategy, quietSpinNanos, waiter);
        runner.thread.start();
        return runner;
    }

    /** Wakes the progress thread for work handed over; any thread. */
    public void wake() {
        waiter.wake(thread);
    }

    /** @return whether the caller is the progress thread */
    public boolean onThread() {
        return Thread.currentThread() == thread;
    }

    /** @return whether the thread still runs cycles */
    public boolean running() {
        return running;
    }

    /** Stops the thread after its cycle and, unless called on it, waits for its agent's {@code onStop}. */
    @Override
    public void close() {
        running = false;
        wake();
        if (!onThread()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void run() {
        boolean quiet = false;
        long quietSince = 0;
        try {
            while (running) {
                int work = agent.doWork();
                if (work == 0 && agent.quiet()) {
                    long now = System.nanoTime();
                    if (!quiet) {
                        quiet = true;
                        quietSince = now;
                    }
                    if (now - quietSince >= quietSpinNanos) {
                        waiter.await();
                        quiet = false;
                        continue;
                    }
                } else {
                    quiet = false;
                }
                idleStrategy.idle(work);
            }
        } catch (Exception e) {
            LOG.error("the progress thread {} failed; it stops", thread.getName(), e);
            running = false;
        } finally {
            agent.onStop();
        }
    }
}
