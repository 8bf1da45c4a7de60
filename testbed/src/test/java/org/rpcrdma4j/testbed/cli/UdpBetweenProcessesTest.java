package org.rpcrdma4j.testbed.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
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

    private static final Pattern SERVING = Pattern.compile("serving .* on the udp fabric at (\\S+/\\p{XDigit}+),");
    private static final long GUARD_S = 120;

    @Test
    void aDemoInThisProcessMountsAServerInAnother(@TempDir Path export, @TempDir Path files) throws Exception {
        Path file = Files.write(files.resolve("file-100KiB"), new byte[100 * 1024]);
        Process server = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                "serve", "--fabric", "udp", "--listen", "127.0.0.1:0", "--export", export.toString())
                .redirectErrorStream(true).start();
        List<String> lines = new ArrayList<>();
        CompletableFuture<String> address = new CompletableFuture<>();
        Thread reader = new Thread(() -> read(server, lines, address), "serve-output");
        reader.start();
        try {
            String at = address.get(GUARD_S, TimeUnit.SECONDS);
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
        } finally {
            // SIGTERM through the handle: Process.destroy would also close the pipe the summary comes on
            server.toHandle().destroy();
            assertThat(server.waitFor(GUARD_S, TimeUnit.SECONDS)).as("the server stops on SIGTERM").isTrue();
            reader.join(TimeUnit.SECONDS.toMillis(GUARD_S));
        }
        assertThat(server.exitValue()).as("SIGTERM's exit").isEqualTo(143);
        assertThat(String.join("\n", lines)).containsPattern("stopped after \\d+\\.\\d s: \\d+ NFS calls and 0 MOUNT "
                + "calls over RDMA, 2 MOUNT calls over TCP, 0 messages dropped, 0 RDMA_ERRORs sent");
    }

    /** Collects the server's output and hands over the address it serves at as soon as it prints it. */
    private static void read(Process server, List<String> lines, CompletableFuture<String> address) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(server.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                synchronized (lines) {
                    lines.add(line);
                }
                Matcher serving = SERVING.matcher(line);
                if (serving.find()) {
                    address.complete(serving.group(1));
                }
            }
            address.completeExceptionally(new IllegalStateException("the server ended without serving: " + lines));
        } catch (IOException e) {
            address.completeExceptionally(e);
        }
    }
}
