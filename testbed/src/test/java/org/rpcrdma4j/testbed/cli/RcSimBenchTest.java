package org.rpcrdma4j.testbed.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.testbed.Main;

/**
 * {@code testbed bench rpc --fabric rc-sim}: the workloads run over the RC fabric on the simulated RC
 * network, every reply right, and the payload of a 1 MiB READ or WRITE is copied once on each side (issue
 * 21 §4's bound): into or out of the RC fabric's pool blocks, never also into registered memory it is
 * only written to. Tagged {@code rc-sim}: it needs fabric-rc on the class path (see RcSimDemoTest).
 */
@Tag("rc-sim")
class RcSimBenchTest {

    private static final int MIB = 1 << 20;
    /** Room for what is copied beside the payload: the calls' and replies' headers and inline parts. */
    private static final int MESSAGES = 4096;

    @Test
    void aMebibyteIsCopiedOnceOnEachSide() throws Exception {
        StringWriter out = new StringWriter();
        int exit = Main.commandLine().setOut(new PrintWriter(out)).execute("bench", "rpc", "--fabric", "rc-sim",
                "--millis", "60", "--json", "--workload", "null-qd1,read-1m,write-1m");

        assertThat(exit).as("every reply right").isZero();
        List<String> runs = new ArrayList<>();
        for (JsonNode run : new ObjectMapper().readTree(out.toString()).required("runs")) {
            String transport = run.get("transport").asText();
            String workload = run.get("workload").asText();
            runs.add(transport + " " + workload);
            if (transport.equals("rdma-rc-sim") && workload.endsWith("-1m")) {
                assertThat(run.get("serverCopiedPerCall").asDouble()).as(workload + " server")
                        .isBetween((double) MIB, (double) MIB + MESSAGES);
                assertThat(run.get("clientCopiedPerCall").asDouble()).as(workload + " client")
                        .isBetween((double) MIB, (double) MIB + MESSAGES);
            }
        }
        assertThat(runs).containsExactly("tcp null-qd1", "tcp read-1m", "tcp write-1m", "rdma-rc-sim null-qd1",
                "rdma-rc-sim read-1m", "rdma-rc-sim write-1m");
    }
}
