package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * A {@code struct efadv_device_attr} written at the offsets rdma-core 44's efadv.h gives (the layout
 * file, not {@link Structs}) decodes to what was written, unsigned fields widened, capability bits
 * as the header numbers them.
 */
class EfaDeviceAttributesTest {
    private static final LayoutFile C = LayoutFile.RDMA_CORE_44;

    private static MemorySegment attr(Arena arena, int sqWr, int rqWr, int sqSge, int rqSge, int inline, int caps,
                                      int rdmaSize) {
        MemorySegment a = arena.allocate(C.size("efadv_device_attr"));
        a.set(JAVA_INT, C.offset("efadv_device_attr.max_sq_wr"), sqWr);
        a.set(JAVA_INT, C.offset("efadv_device_attr.max_rq_wr"), rqWr);
        a.set(JAVA_SHORT, C.offset("efadv_device_attr.max_sq_sge"), (short) sqSge);
        a.set(JAVA_SHORT, C.offset("efadv_device_attr.max_rq_sge"), (short) rqSge);
        a.set(JAVA_SHORT, C.offset("efadv_device_attr.inline_buf_size"), (short) inline);
        a.set(JAVA_INT, C.offset("efadv_device_attr.device_caps"), caps);
        a.set(JAVA_INT, C.offset("efadv_device_attr.max_rdma_size"), rdmaSize);
        return a;
    }

    @Test
    void everyFieldIsReadFromWhereTheHeaderPutsIt() {
        try (Arena arena = Arena.ofConfined()) {
            int caps = C.constant("EFADV_DEVICE_ATTR_CAPS_RDMA_READ") | C.constant("EFADV_DEVICE_ATTR_CAPS_RNR_RETRY");
            EfaDeviceAttributes d = EfaDeviceAttributes.decode(attr(arena, 4096, 8192, 2, 1, 32, caps, 1 << 30));
            assertThat(d).isEqualTo(new EfaDeviceAttributes(4096, 8192, 2, 1, 32, caps, 1L << 30));
            assertThat(d.rdmaRead()).isTrue();
            assertThat(d.rnrRetry()).isTrue();
            assertThat(d.completionsWithSourceGid()).isFalse();
        }
    }

    @Test
    void eachCapabilityIsItsOwnBitAndUnknownBitsAreKept() {
        try (Arena arena = Arena.ofConfined()) {
            EfaDeviceAttributes sgid = EfaDeviceAttributes.decode(
                    attr(arena, 1, 1, 1, 1, 0, C.constant("EFADV_DEVICE_ATTR_CAPS_CQ_WITH_SGID"), 0));
            assertThat(sgid.completionsWithSourceGid()).isTrue();
            assertThat(sgid.rdmaRead() || sgid.rnrRetry()).isFalse();
            EfaDeviceAttributes later = EfaDeviceAttributes.decode(attr(arena, 1, 1, 1, 1, 0, 1 << 3, 0));
            assertThat(later.deviceCaps()).isEqualTo(1 << 3);
            assertThat(later.rdmaRead() || later.rnrRetry() || later.completionsWithSourceGid()).isFalse();
        }
    }

    @Test
    void unsignedFieldsAreWidened() {
        try (Arena arena = Arena.ofConfined()) {
            EfaDeviceAttributes d = EfaDeviceAttributes.decode(attr(arena, -1, -1, 0xffff, 0xffff, 0xffff, 0, -1));
            assertThat(d.maxSendSge()).isEqualTo(65535);
            assertThat(d.maxReceiveSge()).isEqualTo(65535);
            assertThat(d.inlineBufferSize()).isEqualTo(65535);
            assertThat(d.maxRdmaSize()).isEqualTo(0xffff_ffffL);
            assertThat(Integer.toUnsignedLong(d.maxSendRequests())).isEqualTo(0xffff_ffffL);
        }
    }
}
