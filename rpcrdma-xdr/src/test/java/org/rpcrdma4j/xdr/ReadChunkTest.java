package org.rpcrdma4j.xdr;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Grouping a Read list into Read chunks (RFC 8166 §3.4.5). */
class ReadChunkTest {

    @Test
    void groupsByPositionInAscendingOrderKeepingListOrderWithinAChunk() {
        Segment a = new Segment(1, 100, 0x1000);
        Segment b = new Segment(2, 200, 0x2000);
        Segment c = new Segment(3, 300, 0x3000);
        Segment d = new Segment(4, 400, 0x4000);
        // Position 0xFFFFFFF0 is above 2^31: the order is unsigned.
        List<ReadSegment> list = List.of(new ReadSegment(0xFFFFFFF0, a), new ReadSegment(112, b),
                new ReadSegment(0xFFFFFFF0, c), new ReadSegment(112, d));

        assertThat(ReadChunk.group(list)).containsExactly(new ReadChunk(112, List.of(b, d)),
                new ReadChunk(0xFFFFFFF0, List.of(a, c)));
        assertThat(ReadChunk.group(List.of())).isEmpty();
    }
}
