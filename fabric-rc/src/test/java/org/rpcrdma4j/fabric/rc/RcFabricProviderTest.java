package org.rpcrdma4j.fabric.rc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.fabric.Fabrics;

/** The RC fabric is found by the name {@code verbs} and reads addresses as its users write them. */
class RcFabricProviderTest {

    @Test
    void itIsFoundByItsNameAndServesOnAGivenAddress() throws Exception {
        assertThat(Fabrics.named("verbs")).isInstanceOf(RcFabricProvider.class);
        assertThat(new RcFabricProvider().needsListenAddress()).isTrue();
    }

    @Test
    void anAddressTakesAPortOrNfsRdmasOwn() {
        assertThat(RcFabricProvider.parse("10.99.0.1")).isEqualTo(new InetSocketAddress("10.99.0.1", 20049));
        assertThat(RcFabricProvider.parse("10.99.0.1:2050")).isEqualTo(new InetSocketAddress("10.99.0.1", 2050));
        assertThat(RcFabricProvider.parse("[fe80::1]:2050")).isEqualTo(new InetSocketAddress("fe80::1", 2050));
        assertThat(RcFabricProvider.parse("fe80::1")).isEqualTo(new InetSocketAddress("fe80::1", 20049));
        assertThatThrownBy(() -> RcFabricProvider.parse("10.99.0.1:nfs")).hasMessageContaining("not a port");
        assertThatThrownBy(() -> RcFabricProvider.parse("10.99.0.1:70000")).hasMessageContaining("out of range");
    }

    @Test
    void aPeerIsTheFabricAddressOfItsSocketAddress() {
        FabricAddress peer = new RcFabricProvider().peer("10.99.0.1");

        assertThat(peer).isEqualTo(RcFabric.addressOf(new InetSocketAddress("10.99.0.1", 20049)));
        assertThat(peer.inetAddress().getHostAddress()).isEqualTo("10.99.0.1");
    }
}
