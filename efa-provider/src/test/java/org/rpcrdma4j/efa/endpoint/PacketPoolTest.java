package org.rpcrdma4j.efa.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The send packet pool: bounded, its buffers made on first need and reused from then on. */
class PacketPoolTest {

    @Test
    void makesNoMoreBuffersThanWereInUseAtOnceAndNoneBeyondItsBound() {
        PacketPool pool = new PacketPool(3, 64);
        assertThat(pool.available()).isEqualTo(3);

        PacketEntry first = pool.acquire();
        pool.release(first);
        // Used one at a time, the pool keeps reusing its one buffer.
        for (int i = 0; i < 10; i++) {
            PacketEntry again = pool.acquire();
            assertThat(again).isSameAs(first);
            pool.release(again);
        }

        List<PacketEntry> held = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            held.add(pool.acquire());
        }
        assertThat(held).doesNotHaveDuplicates().doesNotContainNull();
        assertThat(held.stream().map(entry -> entry.index)).containsExactlyInAnyOrder(0, 1, 2);
        assertThat(pool.acquire()).as("past its bound").isNull();
        assertThat(pool.inUse()).isEqualTo(3);
        assertThat(pool.available()).isZero();
        for (PacketEntry entry : held) {
            assertThat(pool.get(entry.index)).isSameAs(entry);
        }
    }

    @Test
    void resetTakesBackEveryBufferMade() {
        PacketPool pool = new PacketPool(4, 64);
        PacketEntry a = pool.acquire();
        PacketEntry b = pool.acquire();

        pool.reset();

        assertThat(pool.inUse()).isZero();
        assertThat(pool.available()).isEqualTo(4);
        List<PacketEntry> again = List.of(pool.acquire(), pool.acquire(), pool.acquire());
        assertThat(again).contains(a, b);
        assertThat(again.stream().map(entry -> entry.index)).containsExactlyInAnyOrder(0, 1, 2);
    }
}
