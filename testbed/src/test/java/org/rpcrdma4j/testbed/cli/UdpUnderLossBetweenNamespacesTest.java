package org.rpcrdma4j.testbed.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.fabric.efa.UdpFabricProvider;

/**
 * The testbed between two processes on a real, lossy path (issue 23 §3): {@code serve} and {@code demo}
 * each in a network namespace of its own, joined by a veth pair, where an nftables rule on each side
 * drops 5% of the UDP datagrams coming in over it at random ({@code numgen random mod 100 < 5 drop}), and each
 * process's UDP device duplicates and reorders some of what it sends (its fault hook,
 * {@value UdpFabricProvider#FAULTS_PROPERTY}: the kernel has no {@code netem}). The demo moves a 4 MiB
 * and a 100 KiB file (RDMA Read and Write chunks of 1 MiB; its default 80 MiB and more take minutes
 * under this loss) and its directory of 2,000 entries: every SHA-256 must match, the rules must have
 * dropped datagrams, the server's device must have retransmitted, and both processes must end cleanly.
 * The path and what it needs are {@link LossyNamespaces}'.
 */
class UdpUnderLossBetweenNamespacesTest {

    private static final long GUARD_S = 300;
    private static final String FAULTS = "duplicate=0.01,reorder=0.02,window=8";
    private static final Pattern RETRANSMISSIONS = Pattern.compile("DEVICE_RETRANSMISSIONS=(\\d+)");
    private static final Pattern FABRIC = Pattern.compile("^(fabric: .*)");

    private LossyNamespaces namespaces;

    @BeforeEach
    void twoNamespacesJoinedByALossyLink() throws Exception {
        namespaces = LossyNamespaces.create(5);
    }

    @AfterEach
    void removeTheNamespaces() throws Exception {
        if (namespaces != null) {
            namespaces.close();
        }
    }

    @Test
    void theDemoPassesEveryCheckThroughLossDuplicationAndReordering(@TempDir Path export, @TempDir Path files)
            throws Exception {
        Random random = new Random(23);
        List<Path> moved = List.of(file(files, "file-4MiB", 4 << 20, random), file(files, "file-100KiB", 100 << 10,
                random));
        List<String> faults = List.of("-D" + UdpFabricProvider.FAULTS_PROPERTY + "=" + FAULTS);
        String serverFigures;
        String demoFigures;
        try (TestbedProcess server = TestbedProcess.start(namespaces.inServer(), faults,
                "serve", "--fabric", "udp", "--listen", LossyNamespaces.SERVER_IP + ":0", "--export",
                export.toString())) {
            String at = server.awaitLine(UdpBetweenProcessesTest.SERVING, GUARD_S);
            List<String> demo = new ArrayList<>(List.of("demo", "--fabric", "udp", "--listen",
                    LossyNamespaces.CLIENT_IP + ":0",
                    "--server", at, "--export", export.toString(), "--files"));
            moved.forEach(file -> demo.add(file.toString()));
            try (TestbedProcess client = TestbedProcess.start(namespaces.inClient(), faults,
                    demo.toArray(String[]::new))) {
                assertThat(client.awaitExit(GUARD_S)).as("demo: %s", client.output()).isZero();
                for (Path file : moved) {
                    assertThat(client.output()).as("what came back of %s", file.getFileName())
                            .containsPattern(file.getFileName() + " .* sha256 " + sha256(file) + " ok");
                }
                assertThat(client.output())
                        .containsPattern("bigdir: 2000 entries created in \\d+\\.\\d s, READDIRPLUS listed 2000 ok")
                        .contains("all checks passed");
                demoFigures = client.awaitLine(FABRIC, GUARD_S);
            }
            assertThat(server.terminate(GUARD_S)).as("SIGTERM's exit: %s", server.output()).isEqualTo(143);
            assertThat(server.output()).containsPattern("0 messages dropped, 0 RDMA_ERRORs sent, 0 connections "
                    + "closed for protocol errors")
                    .containsPattern("DEVICE_FAULT_DUPLICATED=[1-9]").containsPattern("DEVICE_FAULT_REORDERED=[1-9]");
            serverFigures = server.awaitLine(FABRIC, GUARD_S);
        }
        Matcher retransmissions = RETRANSMISSIONS.matcher(serverFigures);
        assertThat(retransmissions.find() && Long.parseLong(retransmissions.group(1)) > 0)
                .as("the server's device retransmitted: %s", serverFigures).isTrue();
        List<String> dropped = namespaces.dropped();
        // the build's log shows how much went wrong and was repaired
        System.out.printf("nftables dropped %s%nserver %s%ndemo %s%n", String.join(", ", dropped), serverFigures,
                demoFigures);
    }

    private static Path file(Path dir, String name, int size, Random random) throws IOException {
        byte[] bytes = new byte[size];
        random.nextBytes(bytes);
        return Files.write(dir.resolve(name), bytes);
    }

    private static String sha256(Path file) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    }
}
