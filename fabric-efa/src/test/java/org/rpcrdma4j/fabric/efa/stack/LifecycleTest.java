package org.rpcrdma4j.fabric.efa.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.fabric.conformance.TestProgram;
import org.rpcrdma4j.fabric.efa.EfaFabric;
import org.rpcrdma4j.fabric.efa.SimulatedEfa;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcClient;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvc;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;

/** Clients come and go: what each held on the server, and in this JVM, is released when it goes. */
class LifecycleTest {

    private static final long SEED = Long.getLong("rpcrdma4j.seed", 8166);
    private static final int CLIENTS = 1000;

    @Test
    void aThousandClientsCreatedUsedAndClosedLeaveTheServerAsItWas() throws Exception {
        ThreadPoolExecutor workers = (ThreadPoolExecutor) Executors.newFixedThreadPool(4);
        // The server's own workers are not the clients' threads: all started before the baseline.
        workers.prestartAllCoreThreads();
        try (SimulatedEfa network = SimulatedEfa.start(SEED); EfaFabric server = network.newFabric()) {
            RdmaRpcSvc svc = new RdmaRpcSvcBuilder().withFabric(server).withWorkerThreadExecutionService(workers)
                    .withRpcService(TestProgram.PROGRAM, new TestProgram()).build();
            svc.start();
            useOneClient(network, server, 0);
            Map<String, Long> baseline = gauges(server);
            List<String> threads = threadNames();
            long heap = SimHarness.usedHeap();

            for (int i = 1; i <= CLIENTS; i++) {
                useOneClient(network, server, i);
            }

            // The last goodbyes may still be on their way: wait for them (hang guard), then compare.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while ((server.statistics().connections() > 0 || !gauges(server).equals(baseline))
                    && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(server.statistics().connections()).isZero();
            assertThat(gauges(server)).isEqualTo(baseline);
            assertThat(server.statistics().registrations()).isZero();
            assertThat(network.devices()).as("only the server's device is left").isEqualTo(1);
            assertThat(svc.statistics().callsInProgress()).isZero();
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            // No thread beyond those of the baseline; one of those may have ended since (a JDK pool's
            // idle worker, the first client's reply-queue timer still winding down at the baseline).
            while (!threads.containsAll(threadNames()) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(threadNames()).as("threads").isSubsetOf(threads);
            // What a closed client left behind would show here: 32 KiB each would already be 32 MiB.
            assertThat(SimHarness.usedHeap() - heap).as("heap retained after %d clients", CLIENTS)
                    .isLessThan(32L << 20);
            svc.stop();
        } finally {
            workers.shutdownNow();
        }
    }

    private static void useOneClient(SimulatedEfa network, EfaFabric server, int i) throws Exception {
        try (EfaFabric fabric = network.newFabric();
             RdmaRpcClient client = RdmaRpcClient.builder(fabric, server.localAddress())
                     .withConnectTimeout(Duration.ofSeconds(30)).connect()) {
            TestProgram.Opaque result = new TestProgram.Opaque();
            byte[] data = {(byte) i, (byte) (i >> 8)};
            new RpcCall(TestProgram.PROGRAM.getNumber(), TestProgram.PROGRAM.getVersion(), new RpcAuthTypeNone(),
                    client.transport()).call(TestProgram.ECHO, new TestProgram.Opaque(data), result, 30,
                    TimeUnit.SECONDS);
            assertThat(result.bytes).isEqualTo(data);
        }
    }

    private static List<String> threadNames() {
        return Thread.getAllStackTraces().keySet().stream().map(Thread::getName).sorted().toList();
    }

    private static Map<String, Long> gauges(EfaFabric fabric) {
        return fabric.statistics().gauges();
    }
}
