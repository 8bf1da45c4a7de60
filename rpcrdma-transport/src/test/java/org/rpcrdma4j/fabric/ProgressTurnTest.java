package org.rpcrdma4j.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** Who gets a fabric's turn, and that a busy turn leaves a command to the progress thread. */
class ProgressTurnTest {

    private static final long HANG_GUARD_S = 30;

    @Test
    void aFreeTurnIsTakenAtOnceAndNotAgainWithinIt() {
        ProgressTurn turn = new ProgressTurn();
        assertThat(turn.tryTake()).isTrue();
        assertThat(turn.isHeldByCurrentThread()).isTrue();
        assertThat(turn.tryTake()).as("a command handed over within the turn waits for the one that hands it over")
                .isFalse();
        turn.release();
        assertThat(turn.isHeldByCurrentThread()).isFalse();
        assertThat(turn.tryTake()).isTrue();
        turn.release();
    }

    @Test
    void aTurnHeldElsewhereIsNotTakenByAHandOverButIsByTheProgressThreadOnceFree() throws Exception {
        ProgressTurn turn = new ProgressTurn();
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            turn.take();
            held.countDown();
            try {
                release.await(HANG_GUARD_S, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                turn.release();
            }
        });
        holder.start();
        assertThat(held.await(HANG_GUARD_S, TimeUnit.SECONDS)).isTrue();
        assertThat(turn.tryTake()).as("a busy turn").isFalse();
        assertThat(turn.isHeldByCurrentThread()).isFalse();

        AtomicBoolean taken = new AtomicBoolean();
        Thread progress = new Thread(() -> {
            turn.take();
            taken.set(true);
            turn.release();
        });
        progress.start();
        Thread.sleep(5);
        assertThat(taken).as("the progress thread waits while the turn is held").isFalse();
        release.countDown();
        progress.join(TimeUnit.SECONDS.toMillis(HANG_GUARD_S));
        assertThat(taken).isTrue();
        holder.join(TimeUnit.SECONDS.toMillis(HANG_GUARD_S));
    }
}
