package org.rpcrdma4j.fabric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/** Socket addresses as users write them: a port or the default one, IPv6 in brackets, and back. */
class SocketAddressTextTest {

    @Test
    void anAddressTakesAPortOrTheDefault() {
        assertThat(SocketAddressText.parse("10.99.0.1", 20049)).isEqualTo(new InetSocketAddress("10.99.0.1", 20049));
        assertThat(SocketAddressText.parse("10.99.0.1:2050", 20049)).isEqualTo(new InetSocketAddress("10.99.0.1", 2050));
        assertThat(SocketAddressText.parse("[fe80::1]:2050", 20049)).isEqualTo(new InetSocketAddress("fe80::1", 2050));
        assertThat(SocketAddressText.parse("fe80::1", 20049)).isEqualTo(new InetSocketAddress("fe80::1", 20049));
        assertThat(SocketAddressText.parse("127.0.0.1:0", 20049).getPort()).isZero();
    }

    @Test
    void aBadPortOrAnUnknownHostIsRefused() {
        assertThatThrownBy(() -> SocketAddressText.parse("10.99.0.1:nfs", 1)).hasMessageContaining("not a port");
        assertThatThrownBy(() -> SocketAddressText.parse("10.99.0.1:70000", 1)).hasMessageContaining("out of range");
        assertThatThrownBy(() -> SocketAddressText.parse("no-such-host.invalid", 1)).hasMessageContaining("unknown host");
    }

    @Test
    void whatIsFormattedParsesBack() {
        InetSocketAddress v4 = new InetSocketAddress("10.99.0.1", 20049);
        InetSocketAddress v6 = new InetSocketAddress("fe80::1", 2050);

        assertThat(SocketAddressText.format(v4)).isEqualTo("10.99.0.1:20049");
        assertThat(SocketAddressText.parse(SocketAddressText.format(v6), 1)).isEqualTo(v6);
    }
}
