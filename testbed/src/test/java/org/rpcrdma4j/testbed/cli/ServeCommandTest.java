package org.rpcrdma4j.testbed.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.fabric.FabricStatistics;
import org.rpcrdma4j.testbed.Main;
import org.rpcrdma4j.testbed.demo.NfsWorkload;

/**
 * {@code testbed serve}'s command line: its stop summary and the refusals (a fabric that is not on the
 * class path, a listening address the fabric does not take, an export that is not a directory).
 */
class ServeCommandTest {

    /** A fabric's figures as any fabric gives them. */
    private record Figures(int connections, int registrations, long bytesCopied, Map<String, Long> counters,
                           Map<String, Long> gauges) implements FabricStatistics {
    }

    @Test
    void theStopSummaryShowsTheFabricsCountersThatAreNotZeroAndEveryGauge() {
        Map<String, Long> counters = new LinkedHashMap<>();
        counters.put("PER_CALL_REGISTRATIONS", 0L);
        counters.put("BYTES_COPIED", 4096L);
        counters.put("RDMA_CM_EVENT_ESTABLISHED", 3L);
        Map<String, Long> gauges = new LinkedHashMap<>();
        gauges.put("QUEUE_PAIRS", 0L);
        gauges.put("CHUNK_POOL_BYTES_REGISTERED", 1048576L);

        assertThat(NfsWorkload.fabricSummary(new Figures(2, 1, 4096, counters, gauges)))
                .isEqualTo("fabric: 2 connections, 1 registrations, BYTES_COPIED=4096, RDMA_CM_EVENT_ESTABLISHED=3, "
                        + "QUEUE_PAIRS=0, CHUNK_POOL_BYTES_REGISTERED=1048576");
    }

    @Test
    void aFabricThatIsNotHereIsNamedWithTheOnesThatAre(@TempDir Path export) {
        StringWriter err = new StringWriter();

        // the verbs fabric's module is not on the testbed's test class path
        int exit = Main.commandLine().setErr(new PrintWriter(err))
                .execute("serve", "--fabric", "verbs", "--listen", "127.0.0.1", "--export", export.toString());

        assertThat(exit).isEqualTo(1);
        assertThat(err.toString()).contains("testbed serve: no fabric named verbs is here; found: sim, udp");
    }

    @Test
    void theSimulatedFabricTakesNoListenAddressAndTheExportIsADirectory(@TempDir Path export) {
        StringWriter err = new StringWriter();

        int listen = Main.commandLine().setErr(new PrintWriter(err))
                .execute("serve", "--fabric", "sim", "--listen", "127.0.0.1", "--export", export.toString());
        int noDirectory = Main.commandLine().setErr(new PrintWriter(err))
                .execute("serve", "--fabric", "sim", "--export", export.resolve("missing").toString());

        assertThat(listen).isEqualTo(2);
        assertThat(noDirectory).isEqualTo(2);
        assertThat(err.toString()).contains("--fabric sim: a simulated fabric takes no listening address")
                .contains("is not a directory");
    }
}
