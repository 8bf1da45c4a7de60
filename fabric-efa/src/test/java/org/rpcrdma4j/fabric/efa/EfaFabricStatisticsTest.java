package org.rpcrdma4j.fabric.efa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.rpcrdma4j.fabric.conformance.FabricCalls.on;
import static org.rpcrdma4j.fabric.conformance.FabricCalls.receives;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
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
import org.rpcrdma4j.fabric.FabricConnection;
import org.rpcrdma4j.fabric.conformance.EventRecorder;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcClient;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvc;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;
import org.rpcrdma4j.xdr.ConnectPrivateData;

/**
 * A monitor reads a fabric's statistics while its progress thread is stuck, and is answered at once; a
 * message over a connection shows in both ends' bytes copied.
 */
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

    @Test
    void aMessageIsCopiedOnceAtEachEndOfItsConnection() throws Exception {
        ConnectPrivateData data = new ConnectPrivateData(false, 4096, 4096);
        String text = "x".repeat(1000);
        try (SimulatedEfa network = SimulatedEfa.start(SEED);
             EfaFabric server = network.newFabric();
             EfaFabric client = network.newFabric()) {
            EventRecorder serverEvents = new EventRecorder();
            on(server, () -> {
                server.listen(request -> request.accept(data, receives(1, 4096), serverEvents));
                return null;
            });
            EventRecorder clientEvents = new EventRecorder();
            FabricConnection clientSide = on(client,
                    () -> client.connect(server.localAddress(), data, receives(1, 4096), clientEvents));
            clientEvents.established.get(HANG_GUARD_S, TimeUnit.SECONDS);
            serverEvents.established.get(HANG_GUARD_S, TimeUnit.SECONDS);
            long sent = client.statistics().bytesCopied();
            long received = server.statistics().bytesCopied();

            on(client, () -> clientSide.send(ByteBuffer.wrap(text.getBytes(StandardCharsets.ISO_8859_1)), 1));

            assertThat(clientEvents.next()).isEqualTo("send 1 SUCCESS");
            assertThat(serverEvents.next()).isEqualTo("received " + text);
            // Into the eager packet at the client, out of it into the posted receive at the server.
            assertThat(client.statistics().bytesCopied() - sent).isEqualTo(text.length());
            assertThat(server.statistics().bytesCopied() - received).isEqualTo(text.length());
        }
    }
}
