package org.rpcrdma4j.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class GidTest {
    @Test
    void anIpv4AddressIsTheMappedGid() throws Exception {
        Gid gid = Gid.of(InetAddress.getByName("10.99.0.1"));
        assertThat(gid.raw()).containsExactly(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 99, 0, 1);
        assertThat(gid.toInetAddress()).isEqualTo(InetAddress.getByName("10.99.0.1"));
        assertThat(gid.isZero()).isFalse();
    }

    @Test
    void anIpv6AddressIsItself() throws Exception {
        InetAddress linkLocal = InetAddress.getByName("fe80::5054:ff:fe12:3456");
        assertThat(Gid.of(linkLocal)).isEqualTo(new Gid(linkLocal.getAddress()));
        assertThat(new Gid(new byte[16]).isZero()).isTrue();
        assertThatThrownBy(() -> new Gid(new byte[4])).isInstanceOf(IllegalArgumentException.class);
    }
}
