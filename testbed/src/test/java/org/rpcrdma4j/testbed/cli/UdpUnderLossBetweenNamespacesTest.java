package org.rpcrdma4j.testbed.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
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
 * It needs root, iproute2 and nftables ({@code scripts/test.sh} installs nftables); without them it
 * fails, saying which is missing.
 */
class UdpUnderLossBetweenNamespacesTest {

    private static final long GUARD_S = 300;
    private static final String FAULTS = "duplicate=0.01,reorder=0.02,window=8";
    private static final String SERVER_IP = "10.231.0.1";
    private static final String CLIENT_IP = "10.231.0.2";
    private static final String TABLE = "inet rpcrdma4j_loss";
    private static final Pattern DROPPED = Pattern.compile("counter packets (\\d+) ");
    private static final Pattern RETRANSMISSIONS = Pattern.compile("DEVICE_RETRANSMISSIONS=(\\d+)");
    private static final Pattern FABRIC = Pattern.compile("^(fabric: .*)");

    // Unique per test JVM, so that builds in other worktrees of this machine can run it at the same time.
    private final String serverNs = "rpcrdma4j-serve-" + ProcessHandle.current().pid();
    private final String clientNs = "rpcrdma4j-demo-" + ProcessHandle.current().pid();
    private final List<String> made = new ArrayList<>();

    @BeforeEach
    void twoNamespacesJoinedByALossyLink() throws Exception {
        requireTools();
        for (String ns : List.of(serverNs, clientNs)) {
            run("ip", "netns", "add", ns);
            made.add(ns);
            run("ip", "-n", ns, "link", "set", "lo", "up");
        }
        run("ip", "link", "add", "veth-serve", "netns", serverNs, "type", "veth", "peer", "name", "veth-demo",
                "netns", clientNs);
        lossyLink(serverNs, "veth-serve", SERVER_IP);
        lossyLink(clientNs, "veth-demo", CLIENT_IP);
    }

    /** Deleting a namespace takes its end of the veth pair and its rules with it. */
    @AfterEach
    void removeTheNamespaces() throws Exception {
        for (String ns : made) {
            run("ip", "netns", "delete", ns);
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
        try (TestbedProcess server = TestbedProcess.start(List.of("ip", "netns", "exec", serverNs), faults,
                "serve", "--fabric", "udp", "--listen", SERVER_IP + ":0", "--export", export.toString())) {
            String at = server.awaitLine(UdpBetweenProcessesTest.SERVING, GUARD_S);
            List<String> demo = new ArrayList<>(List.of("demo", "--fabric", "udp", "--listen", CLIENT_IP + ":0",
                    "--server", at, "--export", export.toString(), "--files"));
            moved.forEach(file -> demo.add(file.toString()));
            try (TestbedProcess client = TestbedProcess.start(List.of("ip", "netns", "exec", clientNs), faults,
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
        List<String> dropped = new ArrayList<>();
        for (String ns : made) {
            String chain = run("ip", "netns", "exec", ns, "nft", "list chain " + TABLE + " input");
            Matcher packets = DROPPED.matcher(chain);
            assertThat(packets.find() && Long.parseLong(packets.group(1)) > 0)
                    .as("datagrams dropped coming into %s: %s", ns, chain).isTrue();
            dropped.add(packets.group(1) + " into " + ns);
        }
        // the build's log shows how much went wrong and was repaired
        System.out.printf("nftables dropped %s%nserver %s%ndemo %s%n", String.join(", ", dropped), serverFigures,
                demoFigures);
    }

    /** Fails, saying why, where this machine cannot make namespaces: never a silent skip. */
    private static void requireTools() throws IOException {
        assertThat(Files.getAttribute(Path.of("/proc/self"), "unix:uid"))
                .as("network namespaces, veth pairs and nftables rules need root").isEqualTo(0);
        for (String[] tool : new String[][] {{"ip", "iproute2"}, {"nft", "nftables, installed by scripts/test.sh"}}) {
            assertThat(onPath(tool[0])).as("`%s` (Debian package %s) is not on the PATH", tool[0], tool[1]).isTrue();
        }
    }

    private static boolean onPath(String command) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, command))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Gives the namespace's end of the veth pair its address and the rule that drops 5% of the UDP coming in
     * on it; only on it: loopback stays whole, as serve's rpcbind calls over it wait for ever for a lost answer.
     */
    private static void lossyLink(String ns, String device, String address) throws Exception {
        run("ip", "-n", ns, "address", "add", address + "/30", "dev", device);
        run("ip", "-n", ns, "link", "set", device, "up");
        run("ip", "netns", "exec", ns, "nft", "add table " + TABLE + "; add chain " + TABLE + " input { type filter "
                + "hook input priority 0; policy accept; }; add rule " + TABLE + " input iifname \"" + device
                + "\" meta l4proto udp numgen random mod 100 < 5 counter drop");
    }

    /** @return the command's output, once it has ended with 0; else fails with it */
    private static String run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(GUARD_S, TimeUnit.SECONDS)).as("%s ends", String.join(" ", command)).isTrue();
        assertThat(process.exitValue()).as("%s: %s", String.join(" ", command), out).isZero();
        return out;
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
