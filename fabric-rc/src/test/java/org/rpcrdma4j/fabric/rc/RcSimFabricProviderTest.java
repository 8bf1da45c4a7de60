package org.rpcrdma4j.fabric.rc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.fabric.DeviceProfile;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricOptions;
import org.rpcrdma4j.fabric.FabricProvider;
import org.rpcrdma4j.fabric.Fabrics;

/**
 * The RC fabric on the simulated network is found by the name {@code rc-sim}; each fabric it opens has
 * an address of its own, so it takes none, and no text names one; its device does RDMA read and write.
 */
class RcSimFabricProviderTest {

    @Test
    void itIsFoundByItsNameAndOpensRcFabricsEachAtAnAddressOfItsOwn() throws Exception {
        FabricProvider provider = Fabrics.named("rc-sim");

        assertThat(provider).isInstanceOf(RcSimFabricProvider.class);
        assertThat(provider.needsListenAddress()).isFalse();
        try (Fabric first = provider.open(FabricOptions.DEFAULT); Fabric second = provider.open(FabricOptions.DEFAULT)) {
            assertThat(first).isInstanceOf(RcFabric.class);
            assertThat(first.localAddress()).isNotEqualTo(second.localAddress());
            assertThat(first.localAddress().number()).isEqualTo(RcFabric.NFS_RDMA_PORT);
            assertThat(provider.format(first.localAddress())).matches("10\\.\\d+\\.\\d+\\.\\d+:20049");
        }
    }

    @Test
    void aListeningAddressOrAPeerWrittenAsTextIsRefused() {
        FabricProvider provider = new RcSimFabricProvider();

        assertThatThrownBy(() -> provider.open(FabricOptions.DEFAULT.listening("10.0.0.1")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("takes no listening address");
        assertThatThrownBy(() -> provider.peer("10.0.0.1:20049"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reached from this JVM only");
    }

    @Test
    void aDeviceProfileOtherThanReadWriteIsRefused() {
        FabricProvider provider = new RcSimFabricProvider();

        assertThat(provider.deviceProfiles()).containsExactly(DeviceProfile.READ_WRITE);
        assertThatThrownBy(() -> provider.open(FabricOptions.DEFAULT.withDeviceProfile(DeviceProfile.READ)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a simulated RC device does RDMA read and write: it takes no device profile read "
                        + "(the sim and udp fabrics do)");
    }
}
