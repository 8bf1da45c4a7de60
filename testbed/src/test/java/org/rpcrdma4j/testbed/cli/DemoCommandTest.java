package org.rpcrdma4j.testbed.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.testbed.Main;

/** The README's demo runs to the end with every check passing and reports what moved how. */
class DemoCommandTest {

    @Test
    void everyCheckPassesAndTheChunksAreReported() {
        StringWriter out = new StringWriter();

        int exit = Main.commandLine().setOut(new PrintWriter(out)).execute("demo", "--seed", "3");

        assertThat(exit).isZero();
        assertThat(out.toString())
                .contains("file-67108864")
                .doesNotContain("MISMATCH")
                .contains("bigdir: 2000 entries created, READDIRPLUS listed 2000 ok")
                .contains("link: a 4000-byte symbolic link read back ok")
                .containsPattern("calls: +inline \\d+, Read chunks [1-9]\\d*, Position-zero \\d+; provided Write chunks [1-9]")
                .containsPattern("replies: inline \\d+, data in Write chunks [1-9]\\d*, whole in Reply chunks [1-9]")
                .containsPattern("server: eager [1-9]\\d*, .*RDMA reads [1-9]\\d*, writes [1-9]")
                .endsWith("all checks passed" + System.lineSeparator());
    }
}
