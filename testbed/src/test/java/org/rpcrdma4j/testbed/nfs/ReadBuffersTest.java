package org.rpcrdma4j.testbed.nfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** READ buffers come back when the transport disposes the reply that carried them, and are reused. */
class ReadBuffersTest {

    @Test
    void aBufferGivenBackIsTakenAgainWithRoomForTheNewCount() {
        ReadBuffers buffers = new ReadBuffers(1024, 2);
        ByteBuffer first = buffers.take(1000);
        first.put(new byte[10]);

        buffers.give(first);
        ByteBuffer again = buffers.take(16);

        assertThat(again).isSameAs(first);
        assertThat(again.isDirect()).isTrue();
        assertThat(again.position()).isZero();
        assertThat(again.limit()).isEqualTo(16);
    }

    @Test
    void keepsNoMoreThanItsBound() {
        ReadBuffers buffers = new ReadBuffers(64, 1);
        ByteBuffer a = buffers.take(64);
        ByteBuffer b = buffers.take(64);

        buffers.give(a);
        buffers.give(b);

        assertThat(buffers.take(64)).isSameAs(a);
        assertThat(buffers.take(64)).isNotSameAs(b);
    }

    @Test
    void disposingALentBufferGivesItBackOnce() {
        AtomicInteger given = new AtomicInteger();
        LentBuffer lent = new LentBuffer(ByteBuffer.allocate(8), given::incrementAndGet);

        assertThat(lent.tryDispose()).isTrue();

        assertThat(given).hasValue(1);
        assertThatThrownBy(lent::dispose).isInstanceOf(IllegalStateException.class);
        assertThat(given).hasValue(1);
    }
}
