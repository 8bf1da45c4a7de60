package org.rpcrdma4j.efa.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumSet;
import org.junit.jupiter.api.Test;

class MemoryRegionTest {

    private static final long HIGH = 0xFFFF_FFFF_FFFF_F000L; // 4 KiB below 2^64

    private static MemoryRegion region(long address, long length) {
        return new MemoryRegion(7, address, length, EnumSet.of(Access.REMOTE_READ));
    }

    @Test
    void containsIsInclusiveOfTheWholeRegionAndNothingMore() {
        final MemoryRegion region = region(0x1000, 0x100);

        assertThat(region.contains(0x1000, 0x100)).isTrue();
        assertThat(region.contains(0x10FF, 1)).isTrue();
        assertThat(region.contains(0x1100, 0)).isTrue();
        assertThat(region.contains(0x1100, 1)).isFalse();
        assertThat(region.contains(0x0FFF, 1)).isFalse();
        assertThat(region.contains(0x1000, -1)).isFalse();
    }

    @Test
    void containsComparesAddressesUnsigned() {
        final MemoryRegion region = region(HIGH, 0x1000);

        assertThat(region.contains(HIGH, 0x1000)).isTrue();
        assertThat(region.contains(-1L, 1)).isTrue();
        assertThat(region.contains(0, 1)).as("0 is below, not above, 2^64 - 4096").isFalse();
        assertThat(region.contains(Long.MAX_VALUE, 1)).isFalse();
    }

    @Test
    void containsDoesNotOverflowOnHugeCounts() {
        final MemoryRegion region = region(HIGH, 0x1000);

        assertThat(region.contains(-1L, Long.MAX_VALUE)).isFalse();
        assertThat(region.contains(HIGH + 1, 0x1000)).isFalse();
    }

    @Test
    void aRegionMayEndAt2To64ButNotWrapPastIt() {
        assertThat(region(HIGH, 0x1000).length()).isEqualTo(0x1000);
        assertThatThrownBy(() -> region(HIGH, 0x1001)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> region(0, -1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void iovNamesBytesOfTheRegionForAPeer() {
        final MemoryRegion region = region(0x1000, 0x100);

        assertThat(region.iov(0x10, 0x20)).isEqualTo(new RmaIov(0x1010, 0x20, 7));
        assertThatThrownBy(() -> region.iov(0xF0, 0x20)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> region.iov(-1, 1)).isInstanceOf(IllegalArgumentException.class);
    }
}
