package org.rpcrdma4j.testbed.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.testbed.Main;

/**
 * Runs {@code bench rpc --processes 2} and {@code bench efa --device udp} briefly: both transports' runs come
 * back from a second JVM with right replies, each process's share is reported, and the second JVM is gone once
 * the command returns, whether it passed or failed.
 */
class BenchBetweenProcessesTest {

    @Test
    void runsTheWorkloadsOverTcpAndUdpAgainstAServerProcess() throws Exception {
        StringWriter out = new StringWriter();
        int exit = Main.commandLine().setOut(new PrintWriter(out)).execute("bench", "rpc", "--fabric", "udp",
                "--processes", "2", "--millis", "90", "--json", "--workload", "null-qd1,getattr-qd32,read-64k");

        assertThat(exit).as("every reply right").isZero();
        List<String> runs = new ArrayList<>();
        for (JsonNode run : new ObjectMapper().readTree(out.toString()).required("runs")) {
            runs.add(run.get("transport").asText() + " " + run.get("workload").asText());
            assertThat(run.get("verified").asBoolean()).isTrue();
            assertThat(run.get("opsPerSec").asDouble()).isPositive();
            // Each process's share: oncrpc4j decodes every call and encodes every reply into new buffers on the
            // server, as it encodes and decodes them on the client.
            for (String side : List.of("client", "server")) {
                assertThat(run.required(side).get("allocatedPerOp").asDouble()).as(side).isPositive();
                assertThat(run.required(side).get("cpuUsPerOp").asDouble()).as(side).isNotNegative();
            }
            if (run.get("transport").asText().equals("rdma-udp")) {
                // The server's copies come back from its process: at least each call's inline part.
                assertThat(run.get("serverCopiedPerCall").asDouble()).isPositive();
                assertThat(run.get("clientCopiedPerCall").asDouble()).isPositive();
            }
        }
        assertThat(runs).containsExactly("tcp null-qd1", "tcp getattr-qd32", "tcp read-64k", "rdma-udp null-qd1",
                "rdma-udp getattr-qd32", "rdma-udp read-64k");
        assertNoPeerLeft();
    }

    @Test
    void printsEachProcesssShareBesideTcpsInATableOfItsOwn() {
        StringWriter out = new StringWriter();
        int exit = Main.commandLine().setOut(new PrintWriter(out)).execute("bench", "rpc", "--fabric", "udp",
                "--processes", "2", "--millis", "30", "--workload", "null-qd1");

        assertThat(exit).isZero();
        assertThat(out.toString()).contains("the client's and the server's processes added", "tcp cli", "rdma srv",
                "each process's share per operation");
        assertNoPeerLeft();
    }

    @Test
    void aServerProcessThatCannotStartFailsTheRunAndIsGone() {
        StringWriter err = new StringWriter();
        // 192.0.2.1 (TEST-NET-1) is no address of this host: the server's fabric cannot bind it.
        int exit = Main.commandLine().setErr(new PrintWriter(err)).execute("bench", "rpc", "--fabric", "udp",
                "--processes", "2", "--listen", "192.0.2.1:0", "--millis", "30", "--workload", "null-qd1");

        assertThat(exit).isEqualTo(1);
        assertThat(err.toString()).contains("the peer process ended");
        assertNoPeerLeft();
    }

    @Test
    void refusesTwoProcessesOnAFabricThatReachesThisJvmOnly() {
        StringWriter err = new StringWriter();
        int exit = Main.commandLine().setErr(new PrintWriter(err)).execute("bench", "rpc", "--fabric", "sim",
                "--processes", "2");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("--processes 2 needs a fabric that other processes reach");
    }

    @Test
    void refusesABreakdownAcrossProcesses() {
        StringWriter err = new StringWriter();
        int exit = Main.commandLine().setErr(new PrintWriter(err)).execute("bench", "rpc", "--fabric", "udp",
                "--processes", "2", "--breakdown");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("--breakdown records both sides' steps in one process");
    }

    @Test
    void pingsAndStreamsBetweenTwoProcessesOnUdpDevices() throws Exception {
        StringWriter out = new StringWriter();
        int exit = Main.commandLine().setOut(new PrintWriter(out)).execute("bench", "efa", "--device", "udp",
                "--iterations", "20", "--stream-bytes", "16777216", "--json", "--fi-pingpong", "none");

        assertThat(exit).as("every message intact").isZero();
        JsonNode report = new ObjectMapper().readTree(out.toString());
        List<String> rows = new ArrayList<>();
        for (JsonNode result : report.required("results")) {
            rows.add(result.get("test").asText() + " " + result.get("size").asInt() + " "
                    + result.get("unit").asText() + " " + result.get("verified").asBoolean());
            assertThat(result.get("efa").asDouble()).isPositive();
            assertThat(result.get("besideFigure").isNull()).as("fi_pingpong left out").isTrue();
        }
        assertThat(rows).containsExactly(
                "pingpong 8 us true", "pingpong 4096 us true", "pingpong 65536 us true",
                "stream 65536 MB/s true", "stream 1048576 MB/s true", "stream 16777216 MB/s true");
        assertThat(report.required("notes").get(0).asText()).contains("fi_pingpong: left out");
        assertNoPeerLeft();
    }

    @Test
    void saysSoWhenFiPingpongIsNotThere() {
        StringWriter out = new StringWriter();
        int exit = Main.commandLine().setOut(new PrintWriter(out)).execute("bench", "efa", "--device", "udp",
                "--iterations", "5", "--stream-bytes", "16777216", "--fi-pingpong", "/nonexistent/fi_pingpong");

        assertThat(exit).isZero();
        assertThat(out.toString()).contains("efa udp", "fi_pingpong",
                "fi_pingpong: /nonexistent/fi_pingpong not found, so not run");
        assertNoPeerLeft();
    }

    @Test
    void refusesAnUnknownDevice() {
        StringWriter err = new StringWriter();
        int exit = Main.commandLine().setErr(new PrintWriter(err)).execute("bench", "efa", "--device", "rc");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("--device is sim, udp or verbs");
    }

    @Test
    void reachesAPeerStartedByHandOverItsControlPort() throws Exception {
        int control;
        try (ServerSocket probe = new ServerSocket(0)) {
            control = probe.getLocalPort();
        }
        StringWriter peerSaid = new StringWriter();
        CompletableFuture<Integer> peer = CompletableFuture.supplyAsync(() -> Main.commandLine()
                .setErr(new PrintWriter(peerSaid, true)).execute("bench", "efa-peer", "--device", "udp", "--listen",
                        "127.0.0.1:0", "--control", Integer.toString(control)));
        StringWriter out = new StringWriter();
        int exit = -1;
        for (int tries = 0; tries < 100 && exit != 0 && !peer.isDone(); tries++) {
            // the peer may not listen yet: a bench that finds no one there exits 1 and is run again
            exit = Main.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(new StringWriter()))
                    .execute("bench", "efa", "--device", "udp", "--peer", "127.0.0.1:" + control, "--iterations",
                            "20", "--stream-bytes", "16777216", "--json", "--fi-pingpong", "none");
            if (exit != 0) {
                Thread.sleep(100);
                out = new StringWriter();
            }
        }

        assertThat(exit).as("every message intact").isZero();
        assertThat(peer.get(60, TimeUnit.SECONDS)).as("the peer ends with its bench").isZero();
        assertThat(peerSaid.toString()).contains("waiting for a bench on 127.0.0.1:" + control);
        JsonNode report = new ObjectMapper().readTree(out.toString());
        assertThat(report.required("results")).hasSize(6).allSatisfy(result -> {
            assertThat(result.get("verified").asBoolean()).isTrue();
            assertThat(result.get("efa").asDouble()).isPositive();
        });
    }

    @Test
    void refusesAPeerWithoutItsControlPort() {
        StringWriter err = new StringWriter();
        int exit = Main.commandLine().setErr(new PrintWriter(err)).execute("bench", "efa", "--device", "udp",
                "--peer", "127.0.0.1");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("--peer needs the peer's control port");
    }

    /** No JVM this one started for a peer runs on. */
    private static void assertNoPeerLeft() {
        assertThat(ProcessHandle.current().descendants()
                .filter(ProcessHandle::isAlive)
                .map(process -> process.info().commandLine().orElse(""))
                .filter(command -> command.contains("rpc-peer") || command.contains("efa-peer")))
                .isEmpty();
    }
}
