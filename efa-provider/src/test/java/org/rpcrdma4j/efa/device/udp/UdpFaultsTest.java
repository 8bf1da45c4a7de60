package org.rpcrdma4j.efa.device.udp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Faults written as text, as a system property carries them into another process, are read back. */
class UdpFaultsTest {

    @Test
    void everyFaultIsReadByItsNameAndOneLeftOutIsNone() {
        assertThat(UdpFaults.parse("loss=0.05, duplicate=0.01,reorder=0.02,window=8"))
                .isEqualTo(new UdpFaults(0.05, 0.01, 0.02, 8));
        assertThat(UdpFaults.parse("duplicate=0.5")).isEqualTo(UdpFaults.NONE.withDuplication(0.5));
    }

    @Test
    void textThatNamesNoFaultOrNoNumberOrInvalidFaultsIsRefused() {
        assertThatThrownBy(() -> UdpFaults.parse("jitter=0.1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("none of loss=P, duplicate=P, reorder=P, window=N");
        assertThatThrownBy(() -> UdpFaults.parse("loss")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'loss' in 'loss' has no number");
        assertThatThrownBy(() -> UdpFaults.parse("reorder=0.1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("reordering needs a window of at least 1");
    }
}
