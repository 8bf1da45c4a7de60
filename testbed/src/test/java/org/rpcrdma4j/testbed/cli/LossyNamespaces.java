package org.rpcrdma4j.testbed.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real, lossy path for tests between two processes: two network namespaces of their own, joined by a veth pair
 * ({@value #SERVER_IP} and {@value #CLIENT_IP}/30), where an nftables rule on each side drops a share of the UDP
 * datagrams coming in over it at random ({@code numgen random mod 100 < P drop}); only over it: loopback stays
 * whole, as serve's rpcbind calls over it wait for ever for a lost answer. Closing deletes the namespaces, which
 * takes the veth pair and the rules with them. Needs root, iproute2 and nftables ({@code scripts/test.sh} installs
 * nftables); without them it fails, saying which is missing: never a silent skip.
 */
final class LossyNamespaces implements AutoCloseable {

    static final String SERVER_IP = "10.231.0.1";
    static final String CLIENT_IP = "10.231.0.2";
    private static final long GUARD_S = 300;
    private static final String TABLE = "inet rpcrdma4j_loss";
    private static final Pattern DROPPED = Pattern.compile("counter packets (\\d+) ");

    // Unique per test JVM, so that builds in other worktrees of this machine can run it at the same time.
    private final String serverNs = "rpcrdma4j-serve-" + ProcessHandle.current().pid();
    private final String clientNs = "rpcrdma4j-demo-" + ProcessHandle.current().pid();
    private final List<String> made = new ArrayList<>();

    private LossyNamespaces() {
    }

    /**
     * @param lossPercent the share of UDP datagrams each side's rule drops, in percent
     * @return the namespaces, joined
     */
    static LossyNamespaces create(int lossPercent) throws Exception {
        requireTools();
        LossyNamespaces namespaces = new LossyNamespaces();
        try {
            namespaces.join(lossPercent);
        } catch (Exception | AssertionError e) {
            namespaces.close();
            throw e;
        }
        return namespaces;
    }

    private void join(int lossPercent) throws Exception {
        for (String ns : List.of(serverNs, clientNs)) {
            run("ip", "netns", "add", ns);
            made.add(ns);
            run("ip", "-n", ns, "link", "set", "lo", "up");
        }
        run("ip", "link", "add", "veth-serve", "netns", serverNs, "type", "veth", "peer", "name", "veth-demo",
                "netns", clientNs);
        lossyLink(serverNs, "veth-serve", SERVER_IP, lossPercent);
        lossyLink(clientNs, "veth-demo", CLIENT_IP, lossPercent);
    }

    /** @return what runs a command in the server's namespace */
    List<String> inServer() {
        return List.of("ip", "netns", "exec", serverNs);
    }

    /** @return what runs a command in the client's namespace */
    List<String> inClient() {
        return List.of("ip", "netns", "exec", clientNs);
    }

    /** @return per namespace, how many datagrams its rule dropped, as "N into NAMESPACE"; fails where it is 0 */
    List<String> dropped() throws Exception {
        List<String> dropped = new ArrayList<>();
        for (String ns : made) {
            String chain = run("ip", "netns", "exec", ns, "nft", "list chain " + TABLE + " input");
            Matcher packets = DROPPED.matcher(chain);
            assertThat(packets.find() && Long.parseLong(packets.group(1)) > 0)
                    .as("datagrams dropped coming into %s: %s", ns, chain).isTrue();
            dropped.add(packets.group(1) + " into " + ns);
        }
        return dropped;
    }

    @Override
    public void close() throws Exception {
        for (String ns : made) {
            run("ip", "netns", "delete", ns);
        }
        made.clear();
    }

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

    private static void lossyLink(String ns, String device, String address, int lossPercent) throws Exception {
        run("ip", "-n", ns, "address", "add", address + "/30", "dev", device);
        run("ip", "-n", ns, "link", "set", device, "up");
        run("ip", "netns", "exec", ns, "nft", "add table " + TABLE + "; add chain " + TABLE + " input { type filter "
                + "hook input priority 0; policy accept; }; add rule " + TABLE + " input iifname \"" + device
                + "\" meta l4proto udp numgen random mod 100 < " + lossPercent + " counter drop");
    }

    /** @return the command's output, once it has ended with 0; else fails with it */
    static String run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(GUARD_S, TimeUnit.SECONDS)).as("%s ends", String.join(" ", command)).isTrue();
        assertThat(process.exitValue()).as("%s: %s", String.join(" ", command), out).isZero();
        return out;
    }
}
