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
    void anAddressWithoutAPortHasNfsRdmasAndFormatsBack() {
        assertThat(RcFabricProvider.parse("10.99.0.1")).isEqualTo(new InetSocketAddress("10.99.0.1", 20049));
        assertThat(new RcFabricProvider().format(new RcFabricProvider().peer("[fe80::1]:2050")))
                .isEqualTo("[fe80:0:0:0:0:0:0:1]:2050");
        assertThatThrownBy(() -> RcFabricProvider.parse("10.99.0.1:nfs")).hasMessageContaining("not a port");
    }

    @Test
    void aPeerIsTheFabricAddressOfItsSocketAddress() {
        FabricAddress peer = new RcFabricProvider().peer("10.99.0.1");

        assertThat(peer).isEqualTo(RcFabric.addressOf(new InetSocketAddress("10.99.0.1", 20049)));
        assertThat(peer.inetAddress().getHostAddress()).isEqualTo("10.99.0.1");
    }
}
