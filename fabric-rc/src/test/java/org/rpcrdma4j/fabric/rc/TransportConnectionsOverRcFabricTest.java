package org.rpcrdma4j.fabric.rc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrInt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.fabric.conformance.ChunkProgram;
import org.rpcrdma4j.fabric.conformance.HangGuard;
import org.rpcrdma4j.fabric.conformance.TestProgram;
import org.rpcrdma4j.transport.RdmaTransportException;
import org.rpcrdma4j.transport.ReconnectPolicy;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcClient;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvc;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;

/**
 * The transport's connections over the RC fabric on a simulated network: the addresses oncrpc4j sees,
 * a server that stops and the clients it disconnects, and a server that comes back, to which a client
 * sends its calls again with their XIDs. The peers that lose only their own connection (a Read chunk
 * never registered, receives never posted again) are in {@link TransportOverRcFabricTest}.
 */
class TransportConnectionsOverRcFabricTest {

    private static final long HANG_GUARD_S = 30;

    private final SimulatedHosts hosts = new SimulatedHosts();
    private final RcFabric serverFabric = hosts.open(RcFabric.NFS_RDMA_PORT);
    private final ExecutorService workers = Executors.newFixedThreadPool(4);
    private final ChunkProgram program = new ChunkProgram();
    private RdmaRpcSvc svc;
    private RdmaRpcClient client;

    @BeforeEach
    void serveAndConnect() throws Exception {
        svc = new RdmaRpcSvcBuilder().withFabric(serverFabric).withWorkerThreadExecutionService(workers)
                .withRpcService(ChunkProgram.PROGRAM, program).withRpcService(TestProgram.PROGRAM, new TestProgram())
                .withDdpPolicy(ChunkProgram.POLICY).build();
        svc.start();
        client = connect(hosts.open(0));
    }

    /** A client that does not reconnect: these tests see each connection end. */
    private RdmaRpcClient connect(RcFabric fabric) throws Exception {
        return RdmaRpcClient.builder(fabric, serverFabric.localAddress()).withDdpPolicy(ChunkProgram.POLICY)
                .withReconnectPolicy(ReconnectPolicy.NEVER).withConnectTimeout(Duration.ofSeconds(HANG_GUARD_S))
                .connect();
    }

    @AfterEach
    void tearDown() throws Exception {
        if (client != null) {
            client.close();
        }
        svc.stop();
        workers.shutdownNow();
        hosts.close();
    }

    private <T extends XdrAble> T call(RdmaRpcClient on, int procedure, XdrAble args, T result) throws Exception {
        new RpcCall(ChunkProgram.PROGRAM.getNumber(), ChunkProgram.PROGRAM.getVersion(), new RpcAuthTypeNone(),
                on.transport()).call(procedure, args, result, HANG_GUARD_S, TimeUnit.SECONDS);
        return result;
    }

    @Test
    void theServersAddressIsItsListeningPortAndEachClientItsOwn() throws Exception {
        RdmaRpcClient second = connect(hosts.open(0));
        try {
            assertThat(client.transport().getRemoteSocketAddress().getPort()).isEqualTo(RcFabric.NFS_RDMA_PORT);
            assertThat(client.transport().getRemoteSocketAddress().getAddress().getHostAddress()).startsWith("10.0.0.");
            assertThat(client.transport().getLocalSocketAddress()).isNotEqualTo(second.transport().getLocalSocketAddress())
                    .isSameAs(client.transport().getLocalSocketAddress());
        } finally {
            second.close();
        }
    }

    @Test
    void stoppingTheServerDisconnectsItsClients() throws Exception {
        RcFabricStatistics serving = serverFabric.statistics();
        assertThat(serving.connections()).isEqualTo(1);
        // The grant and the backward replies, plus the spare that covers the message being handled.
        TransportConfig config = TransportConfig.DEFAULT;
        assertThat(serving.gauge(RcGauge.POSTED_RECEIVES))
                .isEqualTo(config.responderCredits() + config.backwardRequesterCredits() + 1);
        svc.stop();
        HangGuard.waitFor(() -> !client.transport().isOpen() && serverFabric.statistics().connections() == 0);
        RcFabricStatistics stopped = serverFabric.statistics();
        assertThat(stopped.registrations()).isZero();
        assertThat(stopped.gauge(RcGauge.POSTED_RECEIVES)).isZero();
        assertThatThrownBy(() -> call(client, ChunkProgram.SUM, new TestProgram.Opaque(new byte[1]), new XdrInt()))
                .isInstanceOf(RdmaTransportException.class).hasMessageContaining("closed by the responder");
        svc = new RdmaRpcSvcBuilder().withFabric(serverFabric).withWorkerThreadExecutionService(workers).build();
    }

    /**
     * A client whose server goes away with calls in progress keeps them, tries again (refused while no
     * service listens, with its backoff) and, once a service is back on the same address, sends them
     * again with their XIDs: each answered once, as the Linux client retransmits after a reconnect.
     */
    @Test
    void aClientWhoseServerComesBackSendsItsCallsAgainWithTheirXids() throws Exception {
        RdmaRpcClient again = RdmaRpcClient.builder(hosts.open(0), serverFabric.localAddress())
                .withDdpPolicy(ChunkProgram.POLICY)
                .withReconnectPolicy(ReconnectPolicy.withBackoff(Duration.ofMillis(10), Duration.ofMillis(50)))
                .withConnectTimeout(Duration.ofSeconds(HANG_GUARD_S)).connect();
        try {
            // A first answer brings the server's grant, so that the calls below are all in progress at once.
            assertThat(call(again, ChunkProgram.SUM, new TestProgram.Opaque(new byte[1]), new XdrInt()).intValue())
                    .isEqualTo(ChunkProgram.crc(new byte[1]));
            program.xids.clear();
            program.gate = new CountDownLatch(1);
            List<byte[]> data = List.of(new byte[] {1}, ChunkProgram.pattern(64 * 1024), new byte[] {3, 4});
            List<CompletableFuture<XdrInt>> calls = new ArrayList<>();
            for (byte[] bytes : data) {
                calls.add(new RpcCall(ChunkProgram.PROGRAM.getNumber(), ChunkProgram.PROGRAM.getVersion(),
                        new RpcAuthTypeNone(), again.transport()).call(ChunkProgram.PUT, new TestProgram.Opaque(bytes),
                        XdrInt.class));
            }
            HangGuard.waitFor(() -> program.xids.size() == data.size());
            svc.stop();
            program.gate.countDown(); // its replies go nowhere: the connection is closed
            HangGuard.waitFor(() -> again.connects() >= 3);
            assertThat(calls).noneMatch(CompletableFuture::isDone);

            ChunkProgram back = new ChunkProgram();
            svc = new RdmaRpcSvcBuilder().withFabric(serverFabric).withWorkerThreadExecutionService(workers)
                    .withRpcService(ChunkProgram.PROGRAM, back).withDdpPolicy(ChunkProgram.POLICY).build();
            svc.start();
            for (int i = 0; i < data.size(); i++) {
                assertThat(calls.get(i).get(HANG_GUARD_S, TimeUnit.SECONDS).intValue())
                        .isEqualTo(ChunkProgram.crc(data.get(i)));
            }
            assertThat(back.xids).as("each call sent again once, with its XID")
                    .containsExactlyInAnyOrderElementsOf(program.xids);
            assertThat(again.transport().isOpen()).isTrue();
            assertThat(again.statistics().messagesDropped()).as("no answer to a call not outstanding").isZero();
            assertThat(again.statistics().chunkRegistrations()).isZero();
        } finally {
            again.close();
        }
    }
}
