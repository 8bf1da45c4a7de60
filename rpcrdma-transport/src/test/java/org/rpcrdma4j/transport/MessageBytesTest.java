package org.rpcrdma4j.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A message read in place across buffers: words spanning them, ranges and joins as views, copies only where asked. */
class MessageBytesTest {

    /** Bytes 0, 1, 2, ... 9 in three buffers of 3, 0 and 7 bytes, the last direct. */
    private static MessageBytes split() {
        ByteBuffer direct = ByteBuffer.allocateDirect(7);
        for (int i = 3; i < 10; i++) {
            direct.put((byte) i);
        }
        return MessageBytes.of(List.of(ByteBuffer.wrap(new byte[] {0, 1, 2}), ByteBuffer.allocate(0), direct.flip()));
    }

    @Test
    void readsBytesAndWordsAcrossBuffers() {
        MessageBytes message = split();

        assertThat(message.length()).isEqualTo(10);
        assertThat(message.bufferCount()).isEqualTo(2);
        assertThat(message.get(2)).isEqualTo((byte) 2);
        assertThat(message.get(3)).isEqualTo((byte) 3);
        assertThat(message.getInt(0)).isEqualTo(0x00010203);
        assertThat(message.getInt(1)).isEqualTo(0x01020304);
        assertThat(message.getInt(6)).isEqualTo(0x06070809);
        assertThat(message.toArray()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
    }

    @Test
    void aMessageInOneBufferReadsAsOneInSeveral() {
        ByteBuffer received = ByteBuffer.wrap(new byte[] {9, 9, 0, 1, 2, 3, 4, 5, 9});
        MessageBytes message = MessageBytes.of(List.of(received.position(2).limit(8)));

        assertThat(message.length()).isEqualTo(6);
        assertThat(message.bufferCount()).isEqualTo(1);
        assertThat(message.buffer(0).remaining()).isEqualTo(6);
        assertThat(message.buffer(0).get(0)).isZero();
        assertThat(message.getInt(2)).isEqualTo(0x02030405);
        assertThat(message.range(1, 4).toArray()).containsExactly(1, 2, 3, 4);
        assertThat(message.inOneBuffer(0, 6)).isTrue();
        assertThat(message.contiguous(3, 3).array()).isSameAs(received.array());
        assertThat(received.position()).as("the caller's buffer is not moved").isEqualTo(2);
        assertThatThrownBy(() -> message.getInt(3)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> message.buffer(1)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void refusesReadsOutsideTheMessage() {
        MessageBytes message = split();

        assertThatThrownBy(() -> message.getInt(7)).isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("outside a message of 10 bytes");
        assertThatThrownBy(() -> message.get(-1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> message.range(8, 3)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> message.get(9, new byte[4], 0, 2)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void rangesAndJoinsAreViewsOfTheSameBytes() {
        byte[] array = {10, 11, 12, 13, 14, 15, 16, 17};
        MessageBytes message = MessageBytes.of(array);

        MessageBytes joined = MessageBytes.concat(message.range(4, 4), MessageBytes.of(new byte[] {1, 2}),
                message.range(0, 2));
        array[5] = 99;

        assertThat(joined.toArray()).containsExactly(14, 99, 16, 17, 1, 2, 10, 11);
        assertThat(message.range(3, 0).length()).isZero();
    }

    @Test
    void neighboursInOneArrayBecomeOneBuffer() {
        byte[] chunk = new byte[100];
        MessageBytes segments = MessageBytes.of(List.of(ByteBuffer.wrap(chunk, 0, 40), ByteBuffer.wrap(chunk, 40, 60)));
        MessageBytes apart = MessageBytes.of(List.of(ByteBuffer.wrap(chunk, 0, 40), ByteBuffer.wrap(chunk, 50, 50)));

        assertThat(segments.bufferCount()).isEqualTo(1);
        assertThat(segments.contiguous(0, 100).array()).isSameAs(chunk);
        assertThat(apart.bufferCount()).isEqualTo(2);
    }

    @Test
    void aContiguousRangeIsAViewInOneBufferAndACopyAcrossTwo() {
        MessageBytes message = split();

        ByteBuffer inDirect = message.contiguous(4, 5);
        ByteBuffer across = message.contiguous(1, 4);

        assertThat(inDirect.isDirect()).isTrue();
        assertThat(inDirect.remaining()).isEqualTo(5);
        assertThat(inDirect.get(0)).isEqualTo((byte) 4);
        assertThat(across.isDirect()).isFalse();
        assertThat(across.array()).containsExactly(1, 2, 3, 4);
    }

    @Test
    void takesBuffersBetweenPositionAndLimitWithoutMovingThem() {
        ByteBuffer buffer = ByteBuffer.wrap(new byte[] {9, 9, 1, 2, 3, 9});
        buffer.position(2).limit(5);

        MessageBytes message = MessageBytes.of(List.of(buffer));

        assertThat(message.toArray()).containsExactly(1, 2, 3);
        assertThat(buffer.position()).isEqualTo(2);
        assertThat(buffer.limit()).isEqualTo(5);
    }
}
