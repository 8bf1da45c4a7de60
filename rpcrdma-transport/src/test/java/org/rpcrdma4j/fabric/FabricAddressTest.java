package org.rpcrdma4j.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class FabricAddressTest {

    private static byte[] gid(int... bytes) {
        byte[] gid = new byte[FabricAddress.IDENTITY_LENGTH];
        for (int i = 0; i < bytes.length; i++) {
            gid[i] = (byte) bytes[i];
        }
        return gid;
    }

    @Test
    void aGidThatNamesNoHostCarriesItsLiteralAsHostName() {
        FabricAddress address = new FabricAddress(new byte[32], gid(0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7), 7);
        InetAddress ip = address.inetAddress();
        assertThat(ip).isInstanceOf(Inet6Address.class).isSameAs(address.inetAddress());
        // InetAddress.toString() shows "name/literal" only when the name is known without a lookup.
        assertThat(ip.toString()).isEqualTo("fe80:0:0:0:0:0:0:7/fe80:0:0:0:0:0:0:7");
    }

    @Test
    void anIpv4MappedGidIsThePeersIpv4Address() {
        // A RoCEv2 GID of an IPv4 interface: ::ffff:10.99.0.1.
        FabricAddress address = new FabricAddress(new byte[32], gid(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 99, 0, 1),
                0x11);
        assertThat(address.inetAddress()).isInstanceOf(Inet4Address.class);
        assertThat(address.inetAddress().getHostAddress()).isEqualTo("10.99.0.1");
        // A real address: its host name is left to DNS, looked up at most once on this one object.
        assertThat(address.inetAddress().toString()).isEqualTo("/10.99.0.1");
    }

    @Test
    void equalAddressesAreEqualWhateverTheirIpAddressObject() {
        byte[] raw = {1, 2, 3};
        assertThat(new FabricAddress(raw, gid(0xfe, 0x80), 3)).isEqualTo(new FabricAddress(raw, gid(0xfe, 0x80), 3))
                .hasSameHashCodeAs(new FabricAddress(raw, gid(0xfe, 0x80), 3))
                .isNotEqualTo(new FabricAddress(raw, gid(0xfe, 0x80), 4));
    }
}
