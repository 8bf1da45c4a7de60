package org.rpcrdma4j.efa.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/** The small value types of the SPI. */
class ValuesTest {

    @Test
    void gidRoundTripsItsSixteenBytesAndPrintsLikeIpv6() {
        final byte[] bytes = {(byte) 0xfe, (byte) 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x11, 0x22, (byte) 0xff,
            (byte) 0xfe, 0x33, 0x44, 0x55};
        final Gid gid = Gid.of(bytes);

        assertThat(gid.toBytes()).isEqualTo(bytes);
        assertThat(gid).isEqualTo(Gid.of(bytes.clone()));
        assertThat(gid).hasToString("fe80:0:0:0:211:22ff:fe33:4455");
        assertThatThrownBy(() -> Gid.of(new byte[15])).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void qpnIsSixteenBitsAsInTheRawAddress() {
        final Gid gid = new Gid(1, 2);

        assertThat(new DeviceAddress(gid, 0xFFFF, -1).qpn()).isEqualTo(0xFFFF);
        assertThatThrownBy(() -> new DeviceAddress(gid, 0x10000, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new DeviceAddress(gid, -1, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void completionStatusesKeepTheNumbersOfEfaIoCompStatus() {
        assertThat(CompletionStatus.OK.value()).isZero();
        assertThat(CompletionStatus.LOCAL_ERROR_INVALID_LKEY.value()).isEqualTo(5);
        assertThat(CompletionStatus.LOCAL_ERROR_BAD_LENGTH.value()).isEqualTo(6);
        assertThat(CompletionStatus.REMOTE_ERROR_BAD_ADDRESS.value()).isEqualTo(7);
        assertThat(CompletionStatus.REMOTE_ERROR_BAD_DEST_QPN.value()).isEqualTo(9);
        assertThat(CompletionStatus.REMOTE_ERROR_RNR.value()).isEqualTo(10);
        assertThat(CompletionStatus.REMOTE_ERROR_BAD_LENGTH.value()).isEqualTo(11);
        assertThat(CompletionStatus.LOCAL_ERROR_UNRESP_REMOTE.value()).isEqualTo(13);
        assertThat(CompletionStatus.LOCAL_ERROR_UNREACH_REMOTE.value()).isEqualTo(15);
        assertThat(CompletionStatus.REMOTE_ERROR_FEATURE_MISMATCH.value()).isEqualTo(18);
        for (CompletionStatus status : CompletionStatus.values()) {
            assertThat(CompletionStatus.fromValue(status.value())).isSameAs(status);
        }
        assertThat(CompletionStatus.fromValue(4096)).isNull();
    }

    @Test
    void rmaIovAndAttributesRejectNegativeSizes() {
        assertThatThrownBy(() -> new RmaIov(0, -1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new DeviceAttributes(0, 1, 1, 1, EnumSet.noneOf(Capability.class)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
