package org.rpcrdma4j.testbed.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.testbed.Main;

/**
 * The demo on the rc-sim fabric, the RC fabric on a simulated RC network, runs to the end with every check
 * passing: the NFSv3 service and client in this JVM over RC queue pairs, their chunks through the RC
 * fabric's pools and memory windows. It needs fabric-rc on the class path (JDK 22+): the testbed's pom
 * runs the tests tagged {@code rc-sim} on their own, with it.
 */
@Tag("rc-sim")
class RcSimDemoTest {

    /** {@code seq -f 'entry_with_a_longish_name_%04g' 0 1999 | LC_ALL=C sort | sha256sum}, as DemoCommandTest. */
    private static final String NAMES_SHA256 = "dc9621c57758f13213cd89e8fd3428920eaf870afb91f5dd970b798abf5f594e";

    @Test
    void everyCheckPassesOverTheRcFabric() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();

        int exit = Main.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
                .execute("demo", "--fabric", "rc-sim");

        assertThat(exit).as("demo: %s%s", out, err).isZero();
        assertThat(out.toString().lines().findFirst()).hasValueSatisfying(first -> assertThat(first)
                .contains("on the rc-sim fabric (RC queue pairs and RDMA-CM on a simulated RC network"));
        assertThat(out.toString())
                .containsPattern("server 10\\.\\d+\\.\\d+\\.\\d+ #20049, client 10\\.\\d+\\.\\d+\\.\\d+ #20049")
                .containsPattern("  64 MiB +WRITE +\\d+\\.\\d MiB/s +COMMIT +\\d+\\.\\d ms +READ +\\d+\\.\\d MiB/s +"
                        + "sha256 \\p{XDigit}{16} ok")
                .containsPattern("  20 x 1 MiB +WRITE .* sha256 20 of 20 ok")
                .doesNotContain("MISMATCH")
                .containsPattern("bigdir: 2000 entries created in \\d+\\.\\d s, READDIRPLUS listed 2000 ok in "
                        + "\\d+\\.\\d s, names sha256 " + NAMES_SHA256)
                .containsPattern("link: a 4000-byte symbolic link target, 4000 bytes read back, sha256 \\p{XDigit}{64} ok")
                .containsPattern("calls: +inline \\d+, Read chunks [1-9]\\d*, Position-zero \\d+; provided Write chunks [1-9]")
                .containsPattern("replies: inline \\d+, data in Write chunks [1-9]\\d*, whole in Reply chunks [1-9]")
                // the client's chunks through memory windows, the server's through its chunk pool
                .containsPattern("  client: fabric: \\d+ connections, .*WINDOWS_BOUND=[1-9]")
                .containsPattern("  server: fabric: \\d+ connections, .*RDMA_CM_EVENT_CONNECT_REQUEST=1\\b")
                .endsWith("all checks passed" + System.lineSeparator());
    }

    @Test
    void aDeviceProfileOtherThanReadWriteIsRefused() {
        StringWriter err = new StringWriter();

        int exit = Main.commandLine().setErr(new PrintWriter(err))
                .execute("demo", "--fabric", "rc-sim", "--device-profile", "none");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).startsWith("--device-profile none: the rc-sim fabric's devices do RDMA read and "
                + "write; the sim and udp fabrics take a profile");
    }

    @Test
    void fabricsListsRcSimBesideTheOthers() {
        StringWriter out = new StringWriter();

        int exit = Main.commandLine().setOut(new PrintWriter(out)).execute("fabrics");

        assertThat(exit).isZero();
        assertThat(out.toString()).contains(String.format(
                "rc-sim   RC queue pairs and RDMA-CM on a simulated RC network, reachable from this JVM only%n"));
    }
}
