package org.rpcrdma4j.testbed.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.testbed.Main;

/**
 * The README's demo runs to the end with every check passing, says that it is simulated, reports large files in
 * MiB/s and small ones as time per call, and what moved how; off a terminal it draws no progress.
 */
class DemoCommandTest {

    @Test
    void everyCheckPassesAndTheChunksAreReported() {
        StringWriter out = new StringWriter();

        int exit = Main.commandLine().setOut(new PrintWriter(out)).execute("demo", "--seed", "3");

        assertThat(exit).isZero();
        assertThat(out.toString().lines().findFirst()).hasValueSatisfying(first -> assertThat(first)
                .contains("simulated in one JVM"));
        assertThat(out.toString())
                .contains("server fe80::1 QPN 7, client fe80::2 QPN 7")
                .contains("large files, 16 calls of 1 MiB in flight")
                .containsPattern("  64 MiB +WRITE +\\d+\\.\\d MiB/s +COMMIT +\\d+\\.\\d ms +READ +\\d+\\.\\d MiB/s +"
                        + "sha256 \\p{XDigit}{16} ok")
                .containsPattern("  20 x 1 KiB +WRITE +\\d+\\.\\d us +COMMIT +\\d+\\.\\d us +READ +\\d+\\.\\d us +"
                        + "sha256 20 of 20 ok")
                .doesNotContain("MISMATCH")
                .doesNotContain("\r")
                .contains("bigdir: 2000 entries created, READDIRPLUS listed 2000 ok")
                .contains("link: a 4000-byte symbolic link read back ok")
                .containsPattern("calls: +inline \\d+, Read chunks [1-9]\\d*, Position-zero \\d+; provided Write chunks [1-9]")
                .containsPattern("replies: inline \\d+, data in Write chunks [1-9]\\d*, whole in Reply chunks [1-9]")
                .containsPattern("server: eager [1-9]\\d*, .*RDMA reads [1-9]\\d*, writes [1-9]")
                .endsWith("all checks passed" + System.lineSeparator());
    }
}
