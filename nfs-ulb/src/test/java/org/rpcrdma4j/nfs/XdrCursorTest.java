package org.rpcrdma4j.nfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.xdr.XdrItem;

class XdrCursorTest {

    private static byte[] words(int... words) {
        ByteBuffer buffer = ByteBuffer.allocate(4 * words.length);
        for (int word : words) {
            buffer.putInt(word);
        }
        return buffer.array();
    }

    @Test
    void readsWordsHypersAndPaddedOpaques() {
        byte[] stream = words(7, 0x80000000, 1, 5, 0x61626364, 0x65000000, 1);
        XdrCursor cursor = new XdrCursor(stream, 0, stream.length);

        assertThat(cursor.int32()).isEqualTo(7);
        assertThat(cursor.hyper()).isEqualTo(0x8000000000000001L);
        assertThat(cursor.opaque(8)).isEqualTo(new XdrItem(16, 5));
        assertThat(cursor.position()).isEqualTo(24);
        assertThat(cursor.bool()).isTrue();
    }

    @Test
    void anOpaqueHeaderIsFoundWithoutItsData() {
        byte[] stream = words(7, 1000);
        XdrCursor cursor = new XdrCursor(stream, 0, stream.length);
        cursor.int32();

        assertThat(cursor.opaqueHeader(4096)).isEqualTo(new XdrItem(8, 1000));
        assertThatThrownBy(() -> new XdrCursor(stream, 4, 8).opaqueHeader(999))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bound");
    }

    @Test
    void refusesWhatLiesPastTheEndOrItsBound() {
        assertThatThrownBy(() -> new XdrCursor(words(9), 0, 4).opaque(8))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bound");
        assertThatThrownBy(() -> new XdrCursor(words(8, 0), 0, 8).opaque(8))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ends");
        assertThatThrownBy(() -> new XdrCursor(words(2), 0, 4).bool()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new XdrCursor(words(1, 2), 0, 6).hyper()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new XdrCursor(words(1), 0, 8)).isInstanceOf(IllegalArgumentException.class);
        // A length near 2^32 is refused on its bound before anything is sized from it.
        assertThatThrownBy(() -> new XdrCursor(words(-1), 0, 4).opaque(Integer.MAX_VALUE))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bound");
    }
}
