package org.rpcrdma4j.fabric.efa;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.fabric.IdleStrategy;

/**
 * The progress loop runs commands on its own thread and tells its idle strategy the work of each cycle,
 * unless nothing can happen until it is handed work: then it parks until woken.
 */
class EfaProgressLoopTest {

    private static final long HANG_GUARD_S = 30;

    @Test
    void theIdleStrategyHearsIdleCyclesAndTheCycleThatRanACommand() throws Exception {
        List<Integer> works = new CopyOnWriteArrayList<>();
        CountDownLatch idled = new CountDownLatch(3);
        IdleStrategy recording = work -> {
            works.add(work);
            if (work == 0) {
                idled.countDown();
                LockSupport.parkNanos(100_000);
            }
        };
        // A loop without endpoints could park at once (nothing but a command can give it work): it spins
        // for as long as the test takes instead.
        try (EfaProgressLoop loop = EfaProgressLoop.start("loop-test", System::nanoTime, now -> { }, () -> false,
                Long.MAX_VALUE, recording)) {
            assertThat(idled.await(HANG_GUARD_S, TimeUnit.SECONDS)).isTrue();
            CountDownLatch ran = new CountDownLatch(1);
            Thread[] on = new Thread[1];
            loop.execute(() -> {
                on[0] = Thread.currentThread();
                ran.countDown();
            });
            assertThat(ran.await(HANG_GUARD_S, TimeUnit.SECONDS)).isTrue();
            assertThat(on[0].getName()).isEqualTo("loop-test");
            // The cycle that ran the command tells the strategy so once it ends.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(HANG_GUARD_S);
            while (!works.contains(1) && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
        }
        assertThat(works).contains(0, 1);
    }

    @Test
    void aLoopWithNothingThatCanHappenParksUntilACommandWakesIt() throws Exception {
        List<Integer> works = new CopyOnWriteArrayList<>();
        IdleStrategy recording = works::add;
        try (EfaProgressLoop loop = EfaProgressLoop.start("loop-test", System::nanoTime, now -> { }, () -> true, 0,
                recording)) {
            Thread.sleep(100);
            assertThat(works).as("no idle cycle: parked at once").isEmpty();
            CountDownLatch ran = new CountDownLatch(1);
            loop.execute(ran::countDown);
            assertThat(ran.await(HANG_GUARD_S, TimeUnit.SECONDS)).isTrue();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(HANG_GUARD_S);
            while (works.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            Thread.sleep(100);
            assertThat(works).as("the cycle that ran the command, then parked again").containsExactly(1);
        }
    }

    @Test
    void aQuietLoopGoesOnWithItsIdleStrategyForItsSpinThenParks() throws Exception {
        List<Integer> works = new CopyOnWriteArrayList<>();
        IdleStrategy recording = work -> {
            works.add(work);
            LockSupport.parkNanos(1_000_000);
        };
        try (EfaProgressLoop loop = EfaProgressLoop.start("loop-test", System::nanoTime, now -> { }, () -> true,
                TimeUnit.MILLISECONDS.toNanos(20), recording)) {
            Thread.sleep(200);
            int heard = works.size();
            assertThat(heard).as("idle cycles during the spin").isPositive();
            Thread.sleep(100);
            assertThat(works).as("parked after it").hasSize(heard).containsOnly(0);
        }
    }
}
