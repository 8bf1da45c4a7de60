package org.rpcrdma4j.fabric.efa;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.rpcrdma4j.efa.EfaEndpoint;
import org.rpcrdma4j.fabric.BackoffIdleStrategy;
import org.rpcrdma4j.fabric.IdleStrategy;
import org.rpcrdma4j.fabric.ProgressAgent;
import org.rpcrdma4j.fabric.ProgressRunner;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The progress agent of one or more EFA endpoints, run by a {@link ProgressRunner}: it runs commands
 * handed to {@link #execute} from other threads, then progresses each endpoint and hands its
 * completions to its {@link EfaFabric}. Everything an endpoint and the transport above it do happens
 * on the runner's thread, so neither needs locks.
 *
 * <p>In production a loop serves one endpoint and reads {@link System#nanoTime()}. Endpoints on one
 * simulated fabric share a loop, whose clock and hook advance the simulation in step with them.
 *
 * <p>After each cycle the loop's {@link IdleStrategy} is told the work done; by default
 * {@link BackoffIdleStrategy#forProgress()}: spin, then yield for up to 1 ms, then park briefly.
 * {@link #execute} wakes a parked thread. But when nothing can happen until another thread hands it
 * work (no command waits, every endpoint is {@linkplain EfaEndpoint#idle idle}, and the device side is
 * quiescent (nothing in flight that could complete) or every device has armed its notification to
 * wake the loop ({@link EfaEndpoint#armWakeup})), the thread goes on with its idle strategy for a
 * bounded time only ({@code quietSpinNanos}), then parks until woken
 * ({@link ProgressRunner.Waiter#PARKING}): a call whose only work left is a worker's reply costs the
 * progress thread that much at most while it waits, and one answered within it saves the thread's
 * wake-up. The simulated network says when it is quiescent; a device whose completions come from a
 * thread of its own (the UDP device) wakes the loop itself.
 */
final class EfaProgressLoop implements ProgressAgent, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EfaProgressLoop.class);
    private static final int COMMANDS_PER_CYCLE = 256;
    private static final int POLL_MAX = 64;
    /** How long {@link #call} waits for the loop's thread. */
    private static final long CALL_WAIT_S = 10;

    private final LongSupplier clock;
    private final LongConsumer beforeProgress;
    private final BooleanSupplier quiescent;
    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();
    /**
     * The fabrics progressed, replaced (never changed) on the loop's thread when one is attached or
     * detached: a fabric that closes detaches itself while it progresses, and the loop must not
     * allocate a copy on every turn.
     */
    private EfaFabric[] fabrics = new EfaFabric[0];
    /** Set once by {@link #start}; read on the runner's thread too. */
    private volatile ProgressRunner runner;
    /** What a device runs on its own thread when it has a completion for a sleeping loop. */
    private final Runnable wake = () -> runner.wake();
    private volatile long failures;

    private EfaProgressLoop(LongSupplier clock, LongConsumer beforeProgress, BooleanSupplier quiescent) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.beforeProgress = Objects.requireNonNull(beforeProgress, "beforeProgress");
        this.quiescent = Objects.requireNonNull(quiescent, "quiescent");
    }

    /**
     * Starts a loop on a given clock with a given idle strategy.
     *
     * @param name           the thread's name
     * @param clock          read once per cycle, on the loop's thread; must not go backwards
     * @param beforeProgress called on the loop's thread with that time before the endpoints progress
     * @param quiescent      asked on the loop's thread when a cycle found no work: whether no device
     *                       completion can come unless an endpoint of this loop posts something
     * @param quietSpinNanos how long the idle strategy goes on once nothing can happen, before the
     *                       thread parks until woken; 0 to park at once
     * @param idleStrategy   told the work of each cycle unless the loop parks until woken; used by
     *                       this loop only
     * @return the running loop
     */
    public static EfaProgressLoop start(String name, LongSupplier clock, LongConsumer beforeProgress,
                                        BooleanSupplier quiescent, long quietSpinNanos,
                                        IdleStrategy idleStrategy) {
        EfaProgressLoop loop = new EfaProgressLoop(clock, beforeProgress, quiescent);
        loop.runner = ProgressRunner.start(name, loop, idleStrategy, quietSpinNanos, ProgressRunner.Waiter.PARKING);
        return loop;
    }

    /**
     * Hands an endpoint to this loop and returns the fabric over it; loop thread only.
     *
     * @param endpoint the endpoint; from now on only this loop's thread touches it
     * @param onClosed given the fabric on the loop's thread once it has closed
     * @return the fabric
     */
    EfaFabric attach(EfaEndpoint endpoint, Consumer<EfaFabric> onClosed) {
        EfaFabric fabric = new EfaFabric(endpoint, this, onClosed);
        fabric.postControlReceives();
        EfaFabric[] more = Arrays.copyOf(fabrics, fabrics.length + 1);
        more[fabrics.length] = fabric;
        fabrics = more;
        return fabric;
    }

    /** Stops progressing a fabric; loop thread only. */
    void detach(EfaFabric fabric) {
        List<EfaFabric> fewer = new ArrayList<>(Arrays.asList(fabrics));
        fewer.remove(fabric);
        fabrics = fewer.toArray(new EfaFabric[0]);
    }

    /**
     * Runs a command on the loop's thread, in order, before the next progress. Thread-safe.
     *
     * @param command what to run; it must not block
     * @throws IllegalStateException if the loop is closed
     */
    public void execute(Runnable command) {
        if (!runner.running()) {
            throw new IllegalStateException("the progress loop is closed");
        }
        commands.add(Objects.requireNonNull(command, "command"));
        runner.wake();
    }

    /**
     * Runs work on the loop's thread and waits for its result: at once when called there, else as a
     * command, waiting at most {@link #CALL_WAIT_S}.
     *
     * @param work what to run; it must not block
     * @param <T>  its result's type
     * @return what it returned
     * @throws IllegalStateException if the work threw (the cause), the loop is closed, the wait was
     *     interrupted or the loop did not answer in time
     */
    <T> T call(Supplier<T> work) {
        if (inLoop()) {
            return work.get();
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        execute(() -> {
            try {
                result.complete(work.get());
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
        try {
            return result.get(CALL_WAIT_S, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the progress thread", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("the progress thread did not answer within " + CALL_WAIT_S + " s", e);
        }
    }

    /** @return whether the caller is the loop's thread */
    boolean inLoop() {
        return runner.onThread();
    }

    /** Stops the thread and waits for it; commands not yet run are dropped. */
    @Override
    public void close() {
        runner.close();
    }

    /** The commands handed over, at most {@link #COMMANDS_PER_CYCLE}, then every fabric's progress. */
    @Override
    public int doWork() {
        int work = 0;
        for (Runnable command; work < COMMANDS_PER_CYCLE && (command = commands.poll()) != null; work++) {
            runSafely(command);
        }
        long now = clock.getAsLong();
        beforeProgress.accept(now);
        for (EfaFabric fabric : fabrics) {
            work += progress(fabric, now);
        }
        return work;
    }

    /**
     * @return whether nothing moves until another thread hands the loop work: no command waits, every
     *     endpoint is idle, and the device side is quiescent or every device has armed its notification
     *     to wake this loop (an execute or a notification since returns the park at once)
     */
    @Override
    public boolean quiet() {
        if (!commands.isEmpty()) {
            return false;
        }
        for (EfaFabric fabric : fabrics) {
            if (!fabric.idle()) {
                return false;
            }
        }
        return quiescent.getAsBoolean() || armWakeups();
    }

    /** @return whether every fabric's device will wake this loop on its next completion */
    private boolean armWakeups() {
        for (EfaFabric fabric : fabrics) {
            if (!fabric.endpoint().armWakeup(wake)) {
                return false;
            }
        }
        return true;
    }

    /** @return the work one fabric did; a failure costs that fabric's turn, never the loop */
    private int progress(EfaFabric fabric, long now) {
        try {
            return fabric.progress(now, POLL_MAX);
        } catch (RuntimeException e) {
            failures++;
            if (failures == 1) {
                LOG.error("progressing {} failed; further failures are only counted", fabric.localAddress(), e);
            }
            return 1;
        }
    }

    /** @return how many times a fabric's progress failed (the first failure is logged); thread-safe */
    public long failures() {
        return failures;
    }

    /** No RuntimeException escapes the agent (as in an Agrona agent): one bad command must not stop all. */
    static void runSafely(Runnable work) {
        try {
            work.run();
        } catch (RuntimeException e) {
            LOG.error("a command on the progress thread failed", e);
        }
    }
}
