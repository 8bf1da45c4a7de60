package org.rpcrdma4j.testbed.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class RdmaGidTest {

    @Test
    void writesAnIpv4AddressAsTheV4MappedGidSysfsShows() throws Exception {
        // the rig client guest's address, as Soft-RoCE lists it in /sys/class/infiniband/rxe0/ports/1/gids/N
        assertThat(RdmaGid.gidText(InetAddress.getByName("10.99.0.2")))
                .isEqualTo("0000:0000:0000:0000:0000:ffff:0a63:0002");
    }

    @Test
    void writesAnIpv6AddressAsItIs() throws Exception {
        assertThat(RdmaGid.gidText(InetAddress.getByName("fe80::5054:ff:fe99:2")))
                .isEqualTo("fe80:0000:0000:0000:5054:00ff:fe99:0002");
    }
}
