package org.rpcrdma4j.fabric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class WorkTokensTest {

    private static final class Record {
        String what;
    }

    @Test
    void aTokenFindsItsRecordOnceAndRecordsAreReused() {
        AtomicInteger made = new AtomicInteger();
        WorkTokens<Record> tokens = new WorkTokens<>(() -> {
            made.incrementAndGet();
            return new Record();
        });
        long first = tokens.take();
        tokens.record(first).what = "first";
        long second = tokens.take();
        tokens.record(second).what = "second";

        assertThat(tokens.tokens()).containsExactlyInAnyOrder(first, second);
        assertThat(tokens.remove(first).what).isEqualTo("first");
        assertThat(tokens.remove(first)).as("a repeated completion").isNull();

        long third = tokens.take();
        assertThat(made).as("the freed record is reused").hasValue(2);
        assertThat(third).as("with a new generation").isNotEqualTo(first);
        assertThat(tokens.remove(first)).as("a stale token").isNull();
        assertThat(tokens.remove(second).what).isEqualTo("second");
        assertThat(tokens.isEmpty()).isFalse();
        assertThat(tokens.remove(third)).isNotNull();
        assertThat(tokens.isEmpty()).isTrue();
        assertThat(tokens.tokens()).isEmpty();
    }

    @Test
    void growsBeyondItsFirstSizeAndRejectsTokensItNeverGave() {
        WorkTokens<Record> tokens = new WorkTokens<>(Record::new);
        long[] taken = new long[100];
        for (int i = 0; i < taken.length; i++) {
            taken[i] = tokens.take();
            tokens.record(taken[i]).what = "work " + i;
        }
        for (int i = 0; i < taken.length; i++) {
            assertThat(tokens.remove(taken[i]).what).isEqualTo("work " + i);
        }
        assertThat(tokens.remove(-1L)).isNull();
        assertThat(tokens.remove(1L << 32 | 1000)).isNull();
        assertThatThrownBy(() -> tokens.record(taken[0])).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no live work");
    }
}
