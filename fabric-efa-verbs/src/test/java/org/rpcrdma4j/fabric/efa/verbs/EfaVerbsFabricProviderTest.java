package org.rpcrdma4j.fabric.efa.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.fabric.FabricOptions;
import org.rpcrdma4j.fabric.Fabrics;

/**
 * The provider is found by its name, writes and reads a peer as {@code ADDRESS:PORT/CONNID}, and refuses
 * to open without the RDMA device's address; opening on a device is the rig's (interop/run.sh efa-verbs).
 */
class EfaVerbsFabricProviderTest {

    @Test
    void itIsFoundByItsName() throws Exception {
        assertThat(Fabrics.named("efa-verbs")).isInstanceOf(EfaVerbsFabricProvider.class);
    }

    @Test
    void aPeerIsItsAddressPortAndConnidAsFormatWritesIt() {
        EfaVerbsFabricProvider provider = new EfaVerbsFabricProvider();
        FabricAddress peer = provider.peer("10.99.0.1:20050/9abc");
        assertThat(provider.format(peer)).isEqualTo("10.99.0.1:20050/9abc");
        assertThat(provider.format(provider.peer("10.99.0.1/1"))).isEqualTo("10.99.0.1:" + EfaVerbsFabricProvider.DEFAULT_PORT + "/1");
        assertThatThrownBy(() -> provider.peer("10.99.0.1:20050")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("connid");
    }

    @Test
    void itNeedsTheRdmaDevicesAddressToOpen() {
        EfaVerbsFabricProvider provider = new EfaVerbsFabricProvider();
        assertThat(provider.needsListenAddress()).isTrue();
        assertThatThrownBy(() -> provider.open(FabricOptions.DEFAULT)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ADDRESS[:PORT]");
    }
}
