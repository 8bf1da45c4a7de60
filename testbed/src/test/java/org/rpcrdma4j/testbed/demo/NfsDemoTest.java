package org.rpcrdma4j.testbed.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The demo prints addresses in the short form people read (RFC 5952). */
class NfsDemoTest {

    @ParameterizedTest
    @CsvSource({
        "fe80:0:0:0:0:0:0:1, fe80::1",
        "0:0:0:0:0:0:0:1, ::1",
        "fe80:0:0:1:0:0:0:2, fe80:0:0:1::2",
        "2001:db8:0:1:1:1:1:1, 2001:db8:0:1:1:1:1:1",
        "fe80:0:0:0:0:0:0:0, fe80::",
        "1:0:0:2:0:0:0:3, 1:0:0:2::3"
    })
    void compressesTheLongestRunOfZeroGroups(String full, String expected) throws Exception {
        assertThat(NfsDemo.shortIpv6(InetAddress.getByName(full))).isEqualTo(expected);
    }
}
