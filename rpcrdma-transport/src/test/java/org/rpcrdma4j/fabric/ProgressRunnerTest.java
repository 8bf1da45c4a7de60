package org.rpcrdma4j.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A progress runner runs its agent's cycles, tells its idle strategy the work, waits once the agent is
 * quiet and is woken by a hand-off, and runs the agent's stop on its own thread however it ends.
 */
class ProgressRunnerTest {

    private static final long GUARD_S = 30;

    /** An agent whose work is the commands handed to it. */
    private static final class Commands implements ProgressAgent {
        final ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>();
        final CountDownLatch stopped = new CountDownLatch(1);
        volatile Thread stoppedOn;
        volatile boolean quietAnswer = true;

        @Override
        public int doWork() {
            int n = 0;
            for (Runnable command; (command = queue.poll()) != null; n++) {
                command.run();
            }
            return n;
        }

        @Override
        public boolean quiet() {
            return quietAnswer && queue.isEmpty();
        }

        @Override
        public void onStop() {
            stoppedOn = Thread.currentThread();
            stopped.countDown();
        }
    }

    /** Counts its waits and lets each one end only when woken. */
    private static final class CountingWaiter implements ProgressRunner.Waiter {
        final Semaphore wakeups = new Semaphore(0);
        final AtomicInteger waits = new AtomicInteger();

        @Override
        public void await() throws InterruptedException {
            waits.incrementAndGet();
            wakeups.tryAcquire(GUARD_S, TimeUnit.SECONDS);
        }

        @Override
        public void wake(Thread runner) {
            wakeups.release();
        }
    }

    @Test
    void aQuietAgentWaitsUntilAHandOffWakesIt() throws Exception {
        Commands agent = new Commands();
        CountingWaiter waiter = new CountingWaiter();
        AtomicInteger idleWork = new AtomicInteger();
        try (ProgressRunner runner = ProgressRunner.start("test-progress", agent, idleWork::addAndGet, 0, waiter)) {
            waitFor(() -> waiter.waits.get() == 1);

            CountDownLatch ran = new CountDownLatch(1);
            Thread[] ranOn = new Thread[1];
            agent.queue.add(() -> {
                ranOn[0] = Thread.currentThread();
                ran.countDown();
            });
            runner.wake();

            assertThat(ran.await(GUARD_S, TimeUnit.SECONDS)).isTrue();
            assertThat(ranOn[0].getName()).isEqualTo("test-progress");
            waitFor(() -> idleWork.get() == 1);
            waitFor(() -> waiter.waits.get() == 2);
        }
        assertThat(agent.stopped.await(GUARD_S, TimeUnit.SECONDS)).isTrue();
        assertThat(agent.stoppedOn.getName()).isEqualTo("test-progress");
    }

    @Test
    void anAgentThatIsNotQuietNeverWaitsAndKeepsItsIdleStrategy() throws Exception {
        Commands agent = new Commands();
        agent.quietAnswer = false;
        CountingWaiter waiter = new CountingWaiter();
        AtomicInteger idleCycles = new AtomicInteger();
        try (ProgressRunner runner = ProgressRunner.start("busy-progress", agent,
                work -> idleCycles.incrementAndGet(), 0, waiter)) {
            waitFor(() -> idleCycles.get() > 1000);
            assertThat(waiter.waits.get()).isZero();
            assertThat(runner.running()).isTrue();
        }
    }

    @Test
    void aFailingCycleStopsTheRunnerAndStillStopsTheAgent() throws Exception {
        Commands agent = new Commands();
        agent.quietAnswer = false;
        ProgressRunner runner = ProgressRunner.start("failing-progress", agent, work -> Thread.onSpinWait(), 0,
                ProgressRunner.Waiter.PARKING);
        agent.queue.add(() -> {
            throw new IllegalStateException("the device is gone");
        });

        assertThat(agent.stopped.await(GUARD_S, TimeUnit.SECONDS)).isTrue();
        assertThat(runner.running()).isFalse();
        runner.close();
    }

    private static void waitFor(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(GUARD_S);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waited %d s", GUARD_S).isLessThan(deadline);
            Thread.sleep(1);
        }
    }
}
