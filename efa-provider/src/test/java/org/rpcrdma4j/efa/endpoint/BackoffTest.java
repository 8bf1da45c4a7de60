package org.rpcrdma4j.efa.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

class BackoffTest {

    private final Backoff backoff = new Backoff(40_000, 120_000, 1_000_000_000, new Random(42));

    @Test
    void firstWaitIsDrawnBetween40And120MicrosecondsThenDoublesUpToTheCap() {
        long now = 0;
        backoff.onRepeatedRnr(now);
        final long first = backoff.waitNs();
        assertThat(first).isBetween(40_000L, 120_000L);
        now += backoff.waitNs();
        backoff.onRepeatedRnr(now);
        assertThat(backoff.waitNs()).isEqualTo(2 * first);
        for (int i = 0; i < 40; i++) {
            now += backoff.waitNs();
            backoff.onRepeatedRnr(now);
        }
        assertThat(backoff.waitNs()).isEqualTo(1_000_000_000L);
    }

    @Test
    void moreRnrDuringTheWaitDoNotDoubleItAgain() {
        backoff.onRepeatedRnr(0);
        final long first = backoff.waitNs();
        backoff.onRepeatedRnr(1);
        backoff.onRepeatedRnr(2);
        assertThat(backoff.waitNs()).isEqualTo(first);
    }

    @Test
    void activeUntilTheWaitIsOverAndResetBySuccess() {
        backoff.onRepeatedRnr(1_000);
        final long until = 1_000 + backoff.waitNs();
        assertThat(backoff.isActive(until - 1)).isTrue();
        assertThat(backoff.isActive(until)).isFalse();
        backoff.onRepeatedRnr(until);
        backoff.reset();
        assertThat(backoff.isActive(until)).isFalse();
        assertThat(backoff.waitNs()).isZero();
    }
}
