package org.rpcrdma4j.testbed.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.testbed.Main;
import org.rpcrdma4j.transport.TransportStatistics;

/**
 * {@code testbed serve}'s command line: {@code --listen} with and without a port, and the refusals
 * (no {@code --listen} for verbs, an export that is not a directory, the verbs module missing, which it
 * is on the testbed's own test class path).
 */
class ServeCommandTest {

    @Test
    void listenTakesAnAddressWithOrWithoutAPort() {
        assertThat(ServeCommand.parseAddress("--listen", "10.99.0.1")).isEqualTo(new InetSocketAddress("10.99.0.1", 20049));
        assertThat(ServeCommand.parseAddress("--listen", "10.99.0.1:2050")).isEqualTo(new InetSocketAddress("10.99.0.1", 2050));
        assertThat(ServeCommand.parseAddress("--listen", "[fe80::1]:2050")).isEqualTo(new InetSocketAddress("fe80::1", 2050));
        assertThat(ServeCommand.parseAddress("--listen", "fe80::1")).isEqualTo(new InetSocketAddress("fe80::1", 20049));
        assertThatThrownBy(() -> ServeCommand.parseAddress("--listen", "10.99.0.1:nfs")).hasMessageContaining("not a port");
        assertThatThrownBy(() -> ServeCommand.parseAddress("--listen", "10.99.0.1:70000")).hasMessageContaining("out of range");
    }

    @Test
    void theStopSummaryShowsTheFabricsCountersThatAreNotZeroAndEveryGauge() {
        Map<String, Long> counters = new LinkedHashMap<>();
        counters.put("PER_CALL_REGISTRATIONS", 0L);
        counters.put("RDMA_CM_EVENT_ESTABLISHED", 3L);
        Map<String, Long> gauges = new LinkedHashMap<>();
        gauges.put("QUEUE_PAIRS", 0L);
        gauges.put("CHUNK_POOL_BYTES_REGISTERED", 1048576L);

        assertThat(ServeCommand.fabricSummary(TransportStatistics.ofFabric(2, 1, counters, gauges)))
                .isEqualTo("fabric: 2 connections, 1 registrations, RDMA_CM_EVENT_ESTABLISHED=3, QUEUE_PAIRS=0, "
                        + "CHUNK_POOL_BYTES_REGISTERED=1048576");
    }

    @Test
    void verbsWithoutTheModuleSaysWhatItNeeds(@TempDir Path export) {
        StringWriter err = new StringWriter();

        int exit = Main.commandLine().setErr(new PrintWriter(err))
                .execute("serve", "--fabric", "verbs", "--listen", "127.0.0.1", "--export", export.toString());

        assertThat(exit).isEqualTo(1);
        assertThat(err.toString()).contains("--fabric verbs needs").contains("verbs");
    }

    @Test
    void verbsNeedsAListenAddressAndTheExportADirectory(@TempDir Path export) {
        StringWriter err = new StringWriter();

        int noListen = Main.commandLine().setErr(new PrintWriter(err))
                .execute("serve", "--fabric", "verbs", "--export", export.toString());
        int noDirectory = Main.commandLine().setErr(new PrintWriter(err))
                .execute("serve", "--fabric", "sim", "--export", export.resolve("missing").toString());

        assertThat(noListen).isEqualTo(2);
        assertThat(noDirectory).isEqualTo(2);
        assertThat(err.toString()).contains("--fabric verbs needs --listen").contains("is not a directory");
    }
}
