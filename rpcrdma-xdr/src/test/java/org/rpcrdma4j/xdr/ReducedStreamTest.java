package org.rpcrdma4j.xdr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.xdr.ReducedStream.Kind;
import org.rpcrdma4j.xdr.ReducedStream.Region;

class ReducedStreamTest {

    @Test
    void roundUpAndPad() {
        assertThat(RoundUp.roundUp(0)).isZero();
        assertThat(RoundUp.roundUp(1)).isEqualTo(4);
        assertThat(RoundUp.roundUp(4)).isEqualTo(4);
        assertThat(RoundUp.roundUp(21)).isEqualTo(24);
        assertThat(RoundUp.roundUp(0xffffffffL)).isEqualTo(0x100000000L);
        assertThat(RoundUp.padLength(21)).isEqualTo(3);
        assertThat(RoundUp.padLength(4000)).isZero();
        assertThat(RoundUp.isAligned(112)).isTrue();
        assertThat(RoundUp.isAligned(113)).isFalse();
        assertThatThrownBy(() -> RoundUp.roundUp(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void nfsv3WriteMovesItsDataAndKeepsNothingAfterIt() {
        // Linux v3-write-default: WRITE data (262144 bytes) at position 112, last item of the call.
        ReducedStream stream = ReducedStream.reduce(112 + 262144, List.of(new XdrItem(112, 262144)));

        assertThat(stream.regions()).containsExactly(
                new Region(Kind.INLINE, 0, 112, 0, -1),
                new Region(Kind.CHUNK, 112, 262144, -1, 0));
        assertThat(stream.inlineLength()).isEqualTo(112);
    }

    @Test
    void oddLengthItemLeavesItsPadBehindAndLaterBytesStayInline() {
        // An NFSv4 READ reply of 21 bytes followed by 16 bytes of a later operation's result.
        ReducedStream stream = ReducedStream.reduce(104 + 24 + 16, List.of(new XdrItem(104, 21)));

        assertThat(stream.regions()).containsExactly(
                new Region(Kind.INLINE, 0, 104, 0, -1),
                new Region(Kind.CHUNK, 104, 21, -1, 0),
                new Region(Kind.PAD, 125, 3, -1, -1),
                new Region(Kind.INLINE, 128, 16, 104, -1));
        assertThat(stream.inlineLength()).isEqualTo(120);
        assertThat(stream.regions().stream().mapToLong(Region::length).sum()).isEqualTo(stream.streamLength());
    }

    @Test
    void receiverExpansionMatchesTheSendersReduction() {
        List<XdrItem> items = List.of(new XdrItem(16, 5), new XdrItem(40, 4000), new XdrItem(4048, 3));
        ReducedStream sent = ReducedStream.reduce(4060, items);

        ReducedStream received = ReducedStream.expand(sent.inlineLength(), items);

        assertThat(received.regions()).isEqualTo(sent.regions());
        assertThat(received.streamLength()).isEqualTo(4060);
    }

    @Test
    void positionZeroChunkIsTheWholeMessage() {
        ReducedStream stream = ReducedStream.expand(0, List.of(new XdrItem(0, 6256)));

        assertThat(stream.regions()).containsExactly(new Region(Kind.CHUNK, 0, 6256, -1, 0));
        assertThat(stream.inlineLength()).isZero();
    }

    @Test
    void itemsMustBeOrderedDisjointAndInside() {
        assertThatThrownBy(() -> ReducedStream.reduce(64, List.of(new XdrItem(16, 5), new XdrItem(20, 4))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("overlaps");
        assertThatThrownBy(() -> ReducedStream.reduce(64, List.of(new XdrItem(60, 5))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("runs past");
        assertThatThrownBy(() -> ReducedStream.expand(8, List.of(new XdrItem(12, 4))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new XdrItem(2, 4)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ReducedStream.reduce(6, List.of())).isInstanceOf(IllegalArgumentException.class);
    }
}
