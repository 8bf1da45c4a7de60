package org.rpcrdma4j.fabric.efa.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.rpcrdma4j.fabric.conformance.Leaks;
import org.rpcrdma4j.fabric.efa.EfaFabric;
import org.rpcrdma4j.fabric.efa.SimulatedEfa;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcClient;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvc;

/** A server, a client and a raw endpoint on one seeded {@link SimulatedEfa} network. */
final class SimHarness implements AutoCloseable {

    final SimulatedEfa network;
    final EfaFabric serverFabric;
    final EfaFabric clientFabric;
    /** A third endpoint, for tests that speak the wire protocol by hand. */
    final EfaFabric rawFabric;
    final ExecutorService workers = Executors.newFixedThreadPool(4);

    SimHarness(long seed) {
        network = SimulatedEfa.start(seed);
        serverFabric = network.newFabric();
        clientFabric = network.newFabric();
        rawFabric = network.newFabric();
    }

    RdmaRpcClient connect(TransportConfig config) throws IOException {
        return RdmaRpcClient.builder(clientFabric, serverFabric.localAddress()).withConfig(config)
                .withConnectTimeout(Duration.ofSeconds(30)).connect();
    }

    /**
     * Asserts that a fabric, closed, holds nothing: no connection, registration or gauge above 0, and
     * that its progress never failed.
     */
    static void assertHoldsNothing(EfaFabric fabric) {
        Leaks.assertNoneIn(fabric);
        assertThat(fabric.statistics().progressLoopFailures()).isZero();
    }

    /**
     * Closes a test's client and stops its service, each if there is one, then the harness.
     *
     * @param client the client, or {@code null}
     * @param svc    the service, or {@code null}
     * @throws IOException if the service could not tell its clients it stopped
     */
    void close(RdmaRpcClient client, RdmaRpcSvc svc) throws IOException {
        try {
            if (client != null) {
                client.close();
            }
            if (svc != null) {
                svc.stop();
            }
        } finally {
            close();
        }
    }

    /** @return the heap in use after collecting what can be collected */
    static long usedHeap() throws InterruptedException {
        Runtime runtime = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
        }
        return runtime.totalMemory() - runtime.freeMemory();
    }

    @Override
    public void close() {
        rawFabric.close();
        clientFabric.close();
        serverFabric.close();
        network.close();
        workers.shutdownNow();
    }
}
