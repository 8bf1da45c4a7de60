package org.rpcrdma4j.fabric.efa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.fabric.DeviceProfile;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricOptions;
import org.rpcrdma4j.fabric.FabricProvider;
import org.rpcrdma4j.fabric.Fabrics;

/** The simulated network is found by the name {@code sim}; its fabrics of one seed reach each other. */
class SimFabricProviderTest {

    @Test
    void itIsFoundByItsName() throws Exception {
        FabricProvider sim = Fabrics.named("sim");

        assertThat(sim).isInstanceOf(SimFabricProvider.class);
        assertThat(sim.needsListenAddress()).isFalse();
        assertThat(sim.deviceProfiles()).as("the simulated device is built with what a profile says")
                .containsExactlyInAnyOrder(DeviceProfile.values());
        assertThat(Fabrics.found().providers()).extracting(FabricProvider::name).containsExactly("sim", "udp");
        assertThat(Fabrics.found().failures()).isEmpty();
    }

    @Test
    void fabricsOfOneSeedAreOnOneNetworkAndEachHasItsOwnAddress() throws Exception {
        FabricOptions options = FabricOptions.DEFAULT.withSeed(0x5117);
        try (Fabric one = new SimFabricProvider().open(options); Fabric two = new SimFabricProvider().open(options)) {
            assertThat(one).isInstanceOf(EfaFabric.class);
            assertThat(one.localAddress()).isNotEqualTo(two.localAddress());
            // hosts of one network are numbered in turn: fe80::n
            assertThat(two.localAddress().identity()[15] - one.localAddress().identity()[15]).isEqualTo(1);
        }
    }

    @Test
    void itRefusesAListenAddressAndAPeerWrittenAsText() {
        SimFabricProvider sim = new SimFabricProvider();

        assertThatThrownBy(() -> sim.open(FabricOptions.DEFAULT.listening("10.0.0.1")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("takes no listening address");
        assertThatThrownBy(() -> sim.peer("fe80::1"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("from this JVM only");
    }

    @Test
    void anUnknownNameListsTheFabricsFound() {
        assertThatThrownBy(() -> Fabrics.named("verbs"))
                .hasMessage("no fabric named verbs is here; found: sim, udp");
    }
}
