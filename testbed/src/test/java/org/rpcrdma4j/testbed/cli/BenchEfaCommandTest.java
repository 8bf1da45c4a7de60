package org.rpcrdma4j.testbed.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.testbed.Main;

/**
 * Runs {@code testbed bench efa} small: every size is measured and every message arrives intact, and every
 * emulated RMA row goes by the subprotocol it names beside a direct RDMA figure.
 */
class BenchEfaCommandTest {

    @Test
    void measuresEverySizeWithIntactData() throws Exception {
        StringWriter out = new StringWriter();
        int exit = Main.commandLine().setOut(new PrintWriter(out))
                .execute("bench", "efa", "--iterations", "20", "--stream-bytes", "16777216", "--json", "--seed", "7");

        assertThat(exit).isZero();
        List<String> rows = new ArrayList<>();
        for (JsonNode result : new ObjectMapper().readTree(out.toString()).required("results")) {
            rows.add(result.get("test").asText() + " " + result.get("size").asInt() + " "
                    + result.get("unit").asText() + " " + result.get("verified").asBoolean());
            assertThat(result.get("efa").asDouble()).isPositive();
            assertThat(result.get("memcpy").asDouble()).isPositive();
            assertThat(result.get("memcpyOneBuffer").asDouble()).isPositive();
        }
        assertThat(rows).containsExactly(
                "pingpong 8 us true", "pingpong 4096 us true", "pingpong 65536 us true",
                "stream 65536 MB/s true", "stream 1048576 MB/s true", "stream 16777216 MB/s true");
        List<String> rma = new ArrayList<>();
        for (JsonNode result : new ObjectMapper().readTree(out.toString()).required("rma")) {
            rma.add(result.get("operation").asText() + " " + result.get("size").asInt() + " "
                    + result.get("subprotocol").asText() + " " + result.get("verified").asBoolean());
            assertThat(result.get("emulated").asDouble()).isPositive();
            assertThat(result.get("direct").asDouble()).isPositive();
        }
        assertThat(rma).containsExactly("write 4096 EAGER_RTW true", "write 1048576 LONGCTS_RTW true",
                "write 1048576 LONGREAD_RTW true", "read 4096 SHORT_RTR true", "read 1048576 LONGCTS_RTR true",
                "fetch-add 8 FETCH_RTA true");
    }

    @Test
    void printsATableWithOneRowPerMeasurementAndTheirNotes() {
        StringWriter out = new StringWriter();
        int exit = Main.commandLine().setOut(new PrintWriter(out))
                .execute("bench", "efa", "--iterations", "10", "--stream-bytes", "16777216", "--seed", "7");

        assertThat(exit).isZero();
        List<String> lines = out.toString().lines().toList();
        assertThat(lines).hasSize(19);
        assertThat(lines.get(0)).startsWith("test ").contains("memcpy 1 buffer");
        assertThat(lines.subList(1, 7)).allSatisfy(row -> assertThat(row).endsWith(" ok"));
        assertThat(lines.subList(1, 7).stream().map(row -> row.split(" +")[0] + " " + row.split(" +")[1]))
                .containsExactly("pingpong 8", "pingpong 4096", "pingpong 65536", "stream 65536", "stream 1048576",
                        "stream 16777216");
        assertThat(lines.get(7)).startsWith("latency is one way");
        assertThat(lines.get(10)).startsWith("rma ").contains("emulated by");
        assertThat(lines.subList(11, 17)).allSatisfy(row -> assertThat(row).endsWith(" ok"));
        assertThat(lines.subList(11, 17).stream().map(row -> String.join(" ", List.of(row.split(" +")).subList(0, 3))))
                .containsExactly("write 4096 EAGER_RTW", "write 1048576 LONGCTS_RTW", "write 1048576 LONGREAD_RTW",
                        "read 4096 SHORT_RTR", "read 1048576 LONGCTS_RTR", "fetch-add 8 FETCH_RTA");
        assertThat(lines.get(17)).startsWith("time per operation");
    }

    @Test
    void refusesNonPositiveCounts() {
        StringWriter err = new StringWriter();
        int exit = Main.commandLine().setErr(new PrintWriter(err)).execute("bench", "efa", "--iterations", "0");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("must be positive");
    }
}
