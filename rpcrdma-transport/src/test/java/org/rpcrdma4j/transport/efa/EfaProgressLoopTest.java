package org.rpcrdma4j.transport.efa;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.transport.IdleStrategy;

/**
 * The progress loop runs commands in its turn: on the thread that hands one over when the turn is
 * free, on its own thread when it is busy, in order either way; and it tells its idle strategy the
 * work of each cycle.
 */
class EfaProgressLoopTest {

    private static final long HANG_GUARD_S = 30;

    private final List<Integer> works = new CopyOnWriteArrayList<>();
    private final CountDownLatch idled = new CountDownLatch(3);
    private final IdleStrategy recording = work -> {
        works.add(work);
        if (work == 0) {
            idled.countDown();
            LockSupport.parkNanos(100_000);
        }
    };

    @Test
    void aCommandHandedOverWhileTheLoopIdlesRunsAtOnceOnTheCallersThreadInTheTurn() throws Exception {
        try (EfaProgressLoop loop = EfaProgressLoop.start("loop-test", System::nanoTime, now -> { }, recording)) {
            assertThat(idled.await(HANG_GUARD_S, TimeUnit.SECONDS)).isTrue();
            List<Object> seen = new CopyOnWriteArrayList<>();
            loop.execute(() -> {
                seen.add(Thread.currentThread());
                seen.add(loop.inLoop());
            });
            assertThat(seen).containsExactly(Thread.currentThread(), true);
            assertThat(loop.inLoop()).isFalse();
        }
    }

    @Test
    void commandsHandedOverWhileTheLoopsThreadHoldsTheTurnRunThereInOrderAndCountAsItsWork() throws Exception {
        AtomicBoolean hold = new AtomicBoolean();
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (EfaProgressLoop loop = EfaProgressLoop.start("loop-test", System::nanoTime, now -> {
            if (hold.getAndSet(false)) {
                holding.countDown();
                awaitQuietly(release);
            }
        }, recording)) {
            assertThat(idled.await(HANG_GUARD_S, TimeUnit.SECONDS)).isTrue();
            hold.set(true);
            assertThat(holding.await(HANG_GUARD_S, TimeUnit.SECONDS)).isTrue();
            List<String> ran = new CopyOnWriteArrayList<>();
            CountDownLatch both = new CountDownLatch(2);
            loop.execute(() -> {
                ran.add("first on " + Thread.currentThread().getName());
                both.countDown();
            });
            loop.execute(() -> {
                ran.add("second on " + Thread.currentThread().getName());
                both.countDown();
            });
            assertThat(ran).isEmpty();
            release.countDown();
            assertThat(both.await(HANG_GUARD_S, TimeUnit.SECONDS)).isTrue();
            assertThat(ran).containsExactly("first on loop-test", "second on loop-test");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(HANG_GUARD_S);
            while (!works.contains(2) && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
        }
        assertThat(works).contains(0, 2);
    }

    @Test
    void aCommandHandedOverWithinTheTurnRunsAfterTheOneThatHandsItOver() throws Exception {
        try (EfaProgressLoop loop = EfaProgressLoop.start("loop-test", System::nanoTime, now -> { }, recording)) {
            List<String> order = new CopyOnWriteArrayList<>();
            CountDownLatch inner = new CountDownLatch(1);
            loop.execute(() -> {
                order.add("outer");
                loop.execute(() -> {
                    order.add("inner");
                    inner.countDown();
                });
                order.add("outer ends");
            });
            assertThat(inner.await(HANG_GUARD_S, TimeUnit.SECONDS)).isTrue();
            assertThat(order).containsExactly("outer", "outer ends", "inner");
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(HANG_GUARD_S, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
