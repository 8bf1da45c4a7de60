package org.rpcrdma4j.testbed.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.fabric.efa.UdpFabricProvider;

/**
 * The soak of issue 23 §3, not part of any build: run it with the {@code soak} profile (README, "The soak").
 * {@code serve} and {@code demo --soak SIZE} on the {@link LossyNamespaces} path with 5% of the datagrams dropped
 * each way, and each device reordering 25% and duplicating 1% of what it sends: at least SIZE
 * ({@value #SIZE_PROPERTY}, default 10G) through NFS WRITE and READ, no byte corrupted or lost, and the heap used
 * after GC grown by at most 16 MiB between the first minute and the end, in the client (which checks itself) and
 * in the server (asked with {@code jcmd}).
 */
@Tag("soak")
class UdpSoakBetweenNamespacesTest {

    static final String SIZE_PROPERTY = "rpcrdma4j.soak.size";
    private static final String FAULTS = "duplicate=0.01,reorder=0.25,window=8";
    private static final long HEAP_GROWTH_BOUND = 16L << 20;
    private static final long GUARD_S = 300;
    private static final Pattern HEAP_USED = Pattern.compile("used (\\d+)K");
    private static final Pattern FABRIC = Pattern.compile("^(fabric: .*)");
    private static final Pattern SOAK = Pattern.compile("^(soak: .* moved in .*)");

    @Test
    void tenGibThroughLossReorderingAndDuplicationLoseNothingAndLeakNothing(@TempDir Path export) throws Exception {
        String size = System.getProperty(SIZE_PROPERTY, "10G");
        List<String> faults = List.of("-D" + UdpFabricProvider.FAULTS_PROPERTY + "=" + FAULTS);
        try (LossyNamespaces namespaces = LossyNamespaces.create(5);
             TestbedProcess server = TestbedProcess.start(namespaces.inServer(), faults, "serve", "--fabric", "udp",
                     "--listen", LossyNamespaces.SERVER_IP + ":0", "--export", export.toString())) {
            String at = server.awaitLine(UdpBetweenProcessesTest.SERVING, GUARD_S);
            long serverHeapFirst;
            String soak;
            String clientFigures;
            try (TestbedProcess client = TestbedProcess.start(namespaces.inClient(), faults, "demo", "--fabric", "udp",
                    "--listen", LossyNamespaces.CLIENT_IP + ":0", "--server", at, "--export", export.toString(),
                    "--soak", size)) {
                client.awaitLine(Pattern.compile("^(soak: .* checked)$"), GUARD_S);
                TimeUnit.MINUTES.sleep(1);
                serverHeapFirst = heapUsedAfterGc(server.pid());
                assertThat(client.awaitExit(TimeUnit.DAYS.toSeconds(1))).as("demo --soak: %s", client.output())
                        .isZero();
                soak = client.awaitLine(SOAK, GUARD_S);
                clientFigures = client.awaitLine(FABRIC, GUARD_S);
            }
            long serverHeapLast = heapUsedAfterGc(server.pid());
            assertThat(soak).contains(" 0 bytes corrupted, 0 lost").endsWith(" ok");
            assertThat(serverHeapLast - serverHeapFirst).as("the server's heap used after GC grew from %d to %d bytes",
                    serverHeapFirst, serverHeapLast).isLessThanOrEqualTo(HEAP_GROWTH_BOUND);
            assertThat(server.terminate(GUARD_S)).as("SIGTERM's exit: %s", server.output()).isEqualTo(143);
            assertThat(server.output()).contains("0 messages dropped, 0 RDMA_ERRORs sent, 0 connections closed");
            System.out.printf("%s%nserver heap used after GC: %.1f MiB at the first minute, %.1f MiB at the end%n"
                    + "nftables dropped %s%nserver %s%ndemo %s%n", soak, serverHeapFirst / (double) (1 << 20),
                    serverHeapLast / (double) (1 << 20), String.join(", ", namespaces.dropped()),
                    server.awaitLine(FABRIC, GUARD_S), clientFigures);
        }
    }

    /** @return the heap the JVM {@code pid} uses after a full GC, as {@code jcmd} reports it */
    private static long heapUsedAfterGc(long pid) throws Exception {
        String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
        LossyNamespaces.run(jcmd, Long.toString(pid), "GC.run");
        String info = LossyNamespaces.run(jcmd, Long.toString(pid), "GC.heap_info");
        Matcher used = HEAP_USED.matcher(info);
        assertThat(used.find()).as("GC.heap_info: %s", info).isTrue();
        return Long.parseLong(used.group(1)) << 10;
    }
}
