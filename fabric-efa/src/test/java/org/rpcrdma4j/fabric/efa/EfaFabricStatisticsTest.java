package org.rpcrdma4j.fabric.efa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.portmap.GenericPortmapClient;
import org.dcache.oncrpc4j.portmap.OncRpcbindServer;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcClient;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvc;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;

/** A monitor reads a fabric's statistics while its progress thread is stuck, and is answered at once. */
class EfaFabricStatisticsTest {

    private static final long SEED = Long.getLong("rpcrdma4j.seed", 8166);
    private static final long HANG_GUARD_S = 30;

    @Test
    void statisticsAnswerAtOnceWhileTheProgressThreadIsStuck() throws Exception {
        ExecutorService workers = Executors.newFixedThreadPool(2);
        try (SimulatedEfa network = SimulatedEfa.start(SEED);
             EfaFabric server = network.newFabric();
             EfaFabric client = network.newFabric()) {
            RdmaRpcSvc svc = new RdmaRpcSvcBuilder().withFabric(server).withWorkerThreadExecutionService(workers)
                    .withRpcService(new OncRpcProgram(100000, 2), new OncRpcbindServer()).build();
            svc.start();
            try (RdmaRpcClient rdma = RdmaRpcClient.builder(client, server.localAddress())
                    .withConnectTimeout(Duration.ofSeconds(HANG_GUARD_S)).connect()) {
                assertThat(new GenericPortmapClient(rdma.transport()).ping()).isTrue();
                CompletableFuture<EfaFabricStatistics> atTheBlock = new CompletableFuture<>();
                CountDownLatch release = new CountDownLatch(1);
                server.execute(() -> {
                    atTheBlock.complete(server.statistics());
                    try {
                        release.await(HANG_GUARD_S, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                try {
                    EfaFabricStatistics before = atTheBlock.get(HANG_GUARD_S, TimeUnit.SECONDS);
                    EfaFabricStatistics during = assertTimeoutPreemptively(Duration.ofSeconds(3), server::statistics);
                    assertThat(during.connections()).isEqualTo(1);
                    assertThat(during.endpoint().counter(EndpointCounter.EAGER_MESSAGES_SENT))
                            .as("the ping's reply at least").isPositive();
                    assertThat(during).as("nothing moves while the progress thread is stuck").isEqualTo(before);
                } finally {
                    release.countDown();
                }
            } finally {
                svc.stop();
            }
        } finally {
            workers.shutdownNow();
        }
    }
}
