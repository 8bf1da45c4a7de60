package org.rpcrdma4j.testbed.trace;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.xdr.Segment;

/** What a capture's chunk headers can make the replay allocate. */
class RdmaTransfersTest {

    @Test
    void aSegmentLongerThanWhatTheCaptureMovedIsMissingNotAllocated() {
        RdmaTransfers none = new RdmaTransfers();
        // A 4 GiB - 1 segment: allocating it would fail or exhaust the heap; the capture holds none of it.
        Segment huge = new Segment(0x1234, 0xFFFF_FFFF, 0x1000L);

        assertThat(none.gather(huge, true, 0, Integer.MAX_VALUE)).isNull();
        assertThat(none.gather(huge, false, 0, Integer.MAX_VALUE)).isNull();
    }
}
