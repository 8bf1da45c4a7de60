package org.rpcrdma4j.fabric.efa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.fabric.FabricOptions;
import org.rpcrdma4j.fabric.Fabrics;

/**
 * The UDP fabric is found by the name {@code udp}, binds the address it is given, and writes its
 * address, connid included, as text its peers read back.
 */
class UdpFabricProviderTest {

    private final UdpFabricProvider udp = new UdpFabricProvider();

    @Test
    void itIsFoundByItsNameAndBindsAnAddressInBothRoles() throws Exception {
        assertThat(Fabrics.named("udp")).isInstanceOf(UdpFabricProvider.class);
        assertThat(udp.needsListenAddress()).isTrue();
        assertThatThrownBy(() -> udp.open(FabricOptions.DEFAULT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs the address of this host");
    }

    @Test
    void aFabricsAddressAsTextIsReadBackAsThatAddress() throws Exception {
        try (Fabric fabric = udp.open(FabricOptions.DEFAULT.listening("127.0.0.1:0"))) {
            FabricAddress address = fabric.localAddress();
            String text = udp.format(address);

            assertThat(text).matches("127\\.0\\.0\\.1:\\d+/\\p{XDigit}+");
            assertThat(udp.peer(text)).isEqualTo(address);
            assertThat(address.inetAddress().getHostAddress()).isEqualTo("127.0.0.1");
        }
    }

    @Test
    void aPeerWithoutItsConnidOrWithABadOneIsRefused() {
        assertThatThrownBy(() -> udp.peer("127.0.0.1:20049")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the connid is missing");
        assertThatThrownBy(() -> udp.peer("127.0.0.1:20049/xyz")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a connid");
        assertThatThrownBy(() -> udp.peer("127.0.0.1:70000/1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("out of range");
    }
}
