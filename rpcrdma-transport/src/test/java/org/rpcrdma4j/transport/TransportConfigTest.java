package org.rpcrdma4j.transport;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TransportConfigTest {

    @Test
    void segmentsPerChunkFollowTheLargestIoAndTheSegmentSize() {
        // 16 MiB in segments of 128 KiB.
        assertThat(TransportConfig.DEFAULT.maxSegmentsPerChunk()).isEqualTo(128);
        assertThat(TransportConfig.DEFAULT.decodeLimits().maxSegmentsPerChunk()).isEqualTo(128);
        assertThat(TransportConfig.DEFAULT.withMaxMessageSize((1 << 20) + 1).withMaxSegmentSize(4096)
                .maxSegmentsPerChunk()).isEqualTo(257);
    }

    /** Whether a peer may invalidate this side's keys is the fabric's to say, which binds them. */
    @Test
    void thePrivateDataOffersNoRemoteInvalidation() {
        assertThat(TransportConfig.DEFAULT.privateData().remoteInvalidate()).isFalse();
    }

    @Test
    void aResponderTakesWhatTheLinuxClientSendsWhateverItsOwnLargestIo() {
        assertThat(TransportConfig.DEFAULT.withMaxMessageSize(65536).maxSegmentsPerChunk())
                .isEqualTo(TransportConfig.LINUX_MAX_SEGMENTS_PER_CHUNK);
    }
}
