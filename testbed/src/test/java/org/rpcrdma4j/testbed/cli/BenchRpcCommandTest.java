package org.rpcrdma4j.testbed.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rpcrdma4j.testbed.Main;
import org.rpcrdma4j.testbed.bench.StepBreakdown;

/** Runs {@code testbed bench rpc} briefly: every workload runs on both transports with right replies. */
class BenchRpcCommandTest {

    private static final List<String> WORKLOADS = List.of("null-qd1", "null-qd32", "getattr-qd1", "getattr-qd32",
            "lookup-qd1", "lookup-qd32", "access-qd1", "access-qd32", "create-remove-qd1", "create-remove-qd32",
            "readdirplus-qd1", "readdirplus-qd32", "read-4k", "read-64k", "read-1m", "read-1m-eof", "write-4k", "write-64k",
            "write-1m", "read-1m-qd16", "write-1m-qd16");

    @Test
    void runsEveryWorkloadOverTcpAndRdmaAsOneJsonDocument() throws Exception {
        StringWriter out = new StringWriter();
        int exit = Main.commandLine().setOut(new PrintWriter(out)).execute("bench", "rpc", "--millis", "60", "--json");

        assertThat(exit).as("every reply right").isZero();
        List<String> runs = new ArrayList<>();
        double cpuUs = 0;
        for (JsonNode run : runs(out)) {
            runs.add(run.get("transport").asText() + " " + run.get("workload").asText());
            assertThat(run.get("verified").asBoolean()).isTrue();
            assertThat(run.get("latencyUs").asDouble()).isPositive();
            assertThat(run.get("p50Us").asDouble()).isPositive().isLessThanOrEqualTo(run.get("p99Us").asDouble());
            assertThat(run.get("opsPerSec").asDouble()).isPositive();
            assertThat(run.get("cpuUsPerOp").asDouble()).isNotNegative();
            cpuUs += run.get("cpuUsPerOp").asDouble();
            // oncrpc4j encodes every call and reply into a new Xdr: every operation allocates.
            assertThat(run.get("allocatedPerOp").asDouble()).isPositive();
            double mb = run.get("mbPerSec").asDouble();
            if (run.get("workload").asText().matches("(read|write)-.*")) {
                assertThat(mb).isPositive();
            } else {
                assertThat(mb).isZero();
            }
            if (run.get("transport").asText().equals("rdma-sim")) {
                // Every call's inline part is copied out of a receive buffer on both sides, at least.
                assertThat(run.get("serverCopiedPerCall").asDouble()).isPositive();
                assertThat(run.get("clientCopiedPerCall").asDouble()).isPositive();
                if (run.get("workload").asText().endsWith("-1m")) {
                    // The data of a 1 MiB READ or WRITE moves by RDMA only: neither side copies it.
                    assertThat(run.get("serverCopiedPerCall").asDouble()).isLessThan(4096);
                    assertThat(run.get("clientCopiedPerCall").asDouble()).isLessThan(4096);
                }
            } else {
                assertThat(run.has("serverCopiedPerCall")).isFalse();
            }
        }
        // The process's CPU time is read at the clock tick's resolution, so one short run on a busy
        // machine may see none; over all of them, client and server used some.
        assertThat(cpuUs).isPositive();
        List<String> expected = new ArrayList<>();
        for (String transport : List.of("tcp", "rdma-sim")) {
            WORKLOADS.forEach(w -> expected.add(transport + " " + w));
        }
        assertThat(runs).containsExactlyElementsOf(expected);
    }

    @Test
    void aFabricThatIsNotThereIsAnErrorNamingThoseFound() {
        StringWriter err = new StringWriter();
        int exit = Main.commandLine().setErr(new PrintWriter(err)).execute("bench", "rpc", "--fabric", "nosuch");

        assertThat(exit).isEqualTo(1);
        assertThat(err.toString()).startsWith("testbed bench rpc: ").contains("nosuch").contains("sim");
    }

    /** The runs of the one JSON document {@code --json} prints. */
    private static JsonNode runs(StringWriter out) throws Exception {
        return new ObjectMapper().readTree(out.toString()).required("runs");
    }

    @Test
    void printsATableOfRatiosByDefault() {
        StringWriter out = new StringWriter();
        int exit = Main.commandLine().setOut(new PrintWriter(out)).execute("bench", "rpc", "--millis", "15");

        assertThat(exit).isZero();
        assertThat(out.toString()).contains("workload", "tcp p50", "rdma p99", "rdma cpu", "getattr-qd32",
                "create-remove-qd1", "readdirplus-qd32", "read-1m", "write-1m", "ratios are rdma-sim / tcp");
    }

    @Test
    void runsOnlyTheNamedWorkloads() throws Exception {
        StringWriter out = new StringWriter();
        int exit = Main.commandLine().setOut(new PrintWriter(out))
                .execute("bench", "rpc", "--millis", "15", "--json", "--workload", "write-4k,null-qd1");

        assertThat(exit).isZero();
        List<String> runs = new ArrayList<>();
        for (JsonNode run : runs(out)) {
            runs.add(run.get("transport").asText() + " " + run.get("workload").asText());
        }
        assertThat(runs).containsExactly("tcp write-4k", "tcp null-qd1", "rdma-sim write-4k", "rdma-sim null-qd1");
    }

    /**
     * On devices without RDMA, where direct RDMA would fail, the chunked workloads get right replies: a WRITE's
     * Read chunk pulled and a READ's Write chunk filled by emulated RMA.
     */
    @ParameterizedTest
    @ValueSource(strings = {"sim", "udp"})
    void chunkedWorkloadsGetRightRepliesOnDevicesWithoutRdma(String fabric) throws Exception {
        StringWriter out = new StringWriter();
        int exit = Main.commandLine().setOut(new PrintWriter(out)).execute("bench", "rpc", "--millis", "30", "--json",
                "--fabric", fabric, "--device-profile", "none", "--workload", "read-64k,write-64k,read-1m-qd16");

        assertThat(exit).as("every reply right").isZero();
        List<String> verified = new ArrayList<>();
        for (JsonNode run : runs(out)) {
            verified.add(run.get("transport").asText() + " " + run.get("workload").asText() + " "
                    + run.get("verified").asBoolean());
        }
        String rdma = "rdma-" + fabric + "-none";
        assertThat(verified).contains(rdma + " read-64k true", rdma + " write-64k true", rdma + " read-1m-qd16 true");
    }

    /** {@code --beside-profile}: the fabric on one device profile measured beside itself on another, not TCP. */
    @Test
    void measuresOneDeviceProfileBesideAnother() throws Exception {
        StringWriter out = new StringWriter();
        int exit = Main.commandLine().setOut(new PrintWriter(out)).execute("bench", "rpc", "--millis", "30", "--json",
                "--device-profile", "read", "--beside-profile", "read-write", "--workload", "read-1m,write-64k");

        assertThat(exit).as("every reply right").isZero();
        List<String> verified = new ArrayList<>();
        for (JsonNode run : runs(out)) {
            verified.add(run.get("transport").asText() + " " + run.get("workload").asText() + " "
                    + run.get("verified").asBoolean());
        }
        assertThat(verified).containsExactly("rdma-sim read-1m true", "rdma-sim write-64k true",
                "rdma-sim-read read-1m true", "rdma-sim-read write-64k true");
    }

    @Test
    void namesBothProfilesInTheTable() {
        StringWriter out = new StringWriter();
        int exit = Main.commandLine().setOut(new PrintWriter(out)).execute("bench", "rpc", "--millis", "15",
                "--device-profile", "none", "--beside-profile", "read-write", "--workload", "read-4k");

        assertThat(exit).isZero();
        assertThat(out.toString()).contains("ref p50", "ref: rdma-sim; rdma: rdma-sim-none",
                "ratios are rdma-sim-none / rdma-sim").doesNotContain("tcp p50");
    }

    @Test
    void refusesABesideProfileWithASecondProcess() {
        StringWriter err = new StringWriter();
        int exit = Main.commandLine().setErr(new PrintWriter(err)).execute("bench", "rpc", "--fabric", "udp",
                "--processes", "2", "--device-profile", "read", "--beside-profile", "read-write");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("--beside-profile runs both fabrics in this process");
    }

    @Test
    void refusesTheMeasuredProfileBesideItself() {
        StringWriter err = new StringWriter();
        int exit = Main.commandLine().setErr(new PrintWriter(err)).execute("bench", "rpc", "--device-profile", "read",
                "--beside-profile", "read");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("--beside-profile read is the profile measured");
    }

    @Test
    void spinningCallersGetRightRepliesAndAllocationsAreCountedByThread() throws Exception {
        StringWriter out = new StringWriter();
        int exit = Main.commandLine().setOut(new PrintWriter(out)).execute("bench", "rpc", "--millis", "15",
                "--workload", "null-qd1,getattr-qd1", "--spin-micros", "20", "--allocations");

        assertThat(exit).as("every reply right").isZero();
        // The per-thread table names each side's threads: the caller, and rdma-sim's progress thread.
        assertThat(out.toString()).contains("tcp alloc", "rdma allc", "by thread (B per operation)",
                "rdma-sim  null-qd1", "efa-sim-progress", "main");
    }

    @Test
    void refusesANegativeSpin() {
        StringWriter err = new StringWriter();
        int exit = Main.commandLine().setErr(new PrintWriter(err)).execute("bench", "rpc", "--spin-micros", "-1");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("must not be negative");
    }

    @Test
    void refusesAnUnknownWorkload() {
        StringWriter err = new StringWriter();
        int exit = Main.commandLine().setErr(new PrintWriter(err)).execute("bench", "rpc", "--workload", "read-2m");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("no workload read-2m");
    }

    @Test
    void refusesANonPositiveTime() {
        StringWriter err = new StringWriter();
        int exit = Main.commandLine().setErr(new PrintWriter(err)).execute("bench", "rpc", "--millis", "0");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("must be positive");
    }

    @Test
    void runsProgramsOnTheReceivingThreadOfBothTransportsWithRightReplies() throws Exception {
        StringWriter out = new StringWriter();
        int exit = Main.commandLine().setOut(new PrintWriter(out)).execute("bench", "rpc", "--millis", "30", "--json",
                "--same-thread", "--workload", "null-qd1,getattr-qd32,create-remove-qd32,readdirplus-qd1,read-64k");

        assertThat(exit).as("every reply right").isZero();
        List<String> runs = new ArrayList<>();
        for (JsonNode run : runs(out)) {
            assertThat(run.get("verified").asBoolean()).isTrue();
            runs.add(run.get("transport").asText() + " " + run.get("workload").asText());
        }
        assertThat(runs).hasSize(10).contains("tcp create-remove-qd32", "rdma-sim create-remove-qd32");
    }

    @Test
    void breaksACallOverRdmaDownIntoEveryStep() throws Exception {
        StringWriter out = new StringWriter();
        int exit = Main.commandLine().setOut(new PrintWriter(out)).execute("bench", "rpc", "--millis", "150",
                "--json", "--breakdown");

        assertThat(exit).isZero();
        JsonNode breakdowns = new ObjectMapper().readTree(out.toString()).required("breakdowns");
        List<String> workloads = new ArrayList<>();
        for (JsonNode breakdown : breakdowns) {
            workloads.add(breakdown.get("workload").asText());
            // Calls were recorded passing every mark, the transport's and the bench's, in both directions.
            assertThat(breakdown.get("calls").asInt()).isPositive();
            List<String> steps = new ArrayList<>();
            breakdown.get("steps").forEach(step -> steps.add(step.get("step").asText()));
            assertThat(steps).containsExactlyElementsOf(StepBreakdown.STEPS.subList(1, StepBreakdown.STEPS.size()));
        }
        assertThat(workloads).containsExactly("null-qd1", "getattr-qd1");
    }

    @Test
    void breaksDownOnlyBlockingCalls() {
        StringWriter err = new StringWriter();
        int exit = Main.commandLine().setErr(new PrintWriter(err))
                .execute("bench", "rpc", "--millis", "15", "--breakdown", "--workload", "getattr-qd32");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("getattr-qd32: only workloads at queue depth 1 break down");
    }
}
