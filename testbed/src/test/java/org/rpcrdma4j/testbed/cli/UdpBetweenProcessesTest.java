package org.rpcrdma4j.testbed.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.testbed.Main;

/**
 * The testbed between two processes over the udp fabric: a second JVM serves a directory on a loopback
 * port, this one mounts it with {@code demo --fabric udp --server} and runs the demo's workload (every
 * file's SHA-256 checked, a directory of 2,000 entries listed), then the server stops on SIGTERM and
 * prints its summary, having dropped nothing.
 */
class UdpBetweenProcessesTest {

    static final Pattern SERVING = Pattern.compile("serving .* on the udp fabric at (\\S+/\\p{XDigit}+),");
    private static final long GUARD_S = 120;

    @Test
    void aDemoInThisProcessMountsAServerInAnother(@TempDir Path export, @TempDir Path files) throws Exception {
        Path file = Files.write(files.resolve("file-100KiB"), new byte[100 * 1024]);
        try (TestbedProcess server = TestbedProcess.start(List.of(), List.of(),
                "serve", "--fabric", "udp", "--listen", "127.0.0.1:0", "--export", export.toString())) {
            String at = server.awaitLine(SERVING, GUARD_S);
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();

            int exit = Main.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute("demo",
                    "--fabric", "udp", "--listen", "127.0.0.1:0", "--server", at, "--export", export.toString(),
                    "--files", file.toString());

            assertThat(exit).as("demo: %s%s", out, err).isZero();
            assertThat(out.toString())
                    .containsPattern("file-100KiB +100 KiB WRITE .* sha256 "
                            + "\\p{XDigit}{64} ok")
                    .containsPattern("bigdir: 2000 entries created in \\d+\\.\\d s, READDIRPLUS listed 2000 ok")
                    .contains("all checks passed");
            assertThat(server.terminate(GUARD_S)).as("SIGTERM's exit: %s", server.output()).isEqualTo(143);
            assertThat(server.output()).containsPattern("stopped after \\d+\\.\\d s: \\d+ NFS calls and 0 MOUNT "
                    + "calls over RDMA, 2 MOUNT calls over TCP, 0 messages dropped, 0 RDMA_ERRORs sent");
        }
    }
}
