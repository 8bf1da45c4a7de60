package org.rpcrdma4j.fabric.efa.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.xdr.XdrInt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.fabric.conformance.ChunkProgram;
import org.rpcrdma4j.fabric.conformance.HangGuard;
import org.rpcrdma4j.fabric.conformance.TestProgram;
import org.rpcrdma4j.fabric.efa.EfaFabric;
import org.rpcrdma4j.fabric.efa.EfaFabricStatistics;
import org.rpcrdma4j.fabric.efa.SimulatedEfa;
import org.rpcrdma4j.transport.RdmaTransportException;
import org.rpcrdma4j.transport.ReconnectPolicy;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcClient;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvc;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;

/**
 * A restart ({@link SimulatedEfa#restart}) is the death of a process and the start of a new one on the
 * same address: the connections of the old one end at once on both sides, with a clear error rather than
 * a timeout, and the new one serves, or connects, under its new connid.
 */
class RestartTest {

    private static final long SEED = Long.getLong("rpcrdma4j.seed", 8166);
    /** Far longer than a prompt failure takes: a call that fails only by timing out fails the test. */
    private static final long HANG_GUARD_S = 30;
    private static final long PROMPT_S = 5;

    private final SimulatedEfa network = SimulatedEfa.start(SEED);
    private final EfaFabric serverFabric = network.newFabric();
    private final EfaFabric clientFabric = network.newFabric();
    private final ChunkProgram program = new ChunkProgram();
    private final ExecutorService workers = Executors.newFixedThreadPool(4);
    private RdmaRpcSvc svc;
    private RdmaRpcClient client;

    @BeforeEach
    void serveAndConnect() throws Exception {
        svc = new RdmaRpcSvcBuilder().withFabric(serverFabric).withConfig(TransportConfig.DEFAULT)
                .withWorkerThreadExecutionService(workers).withRpcService(ChunkProgram.PROGRAM, program)
                .withDdpPolicy(ChunkProgram.POLICY).build();
        svc.start();
        client = connect(clientFabric);
        assertThat(crc(client, 100)).isEqualTo(ChunkProgram.crc(ChunkProgram.pattern(100)));
    }

    @AfterEach
    void stop() {
        program.gate.countDown();
        workers.shutdownNow();
        network.close();
    }

    @Test
    void aClientOfARestartedServerSeesItsConnectionEndAndItsCallFailAtOnce() throws Exception {
        program.gate = new CountDownLatch(1);
        CompletableFuture<Throwable> held = callAsync(client);
        HangGuard.waitFor(() -> svc.statistics().callsInProgress() == 1);

        network.restart(serverFabric);

        assertThat(held.get(PROMPT_S, TimeUnit.SECONDS)).isInstanceOf(RdmaTransportException.class);
        HangGuard.waitFor(() -> clientFabric.statistics().connections() == 0);
        assertThat(crcFails(client)).isInstanceOf(RdmaTransportException.class);
        program.gate.countDown();
        HangGuard.waitFor(() -> svc.statistics().callsInProgress() == 0);
        closeAllAndCheckNothingIsLeft(clientFabric);
    }

    @Test
    void aRestartedServerServesNewClientsAndOldOnesThatConnectAgain() throws Exception {
        FabricAddress before = serverFabric.localAddress();
        network.restart(serverFabric);
        assertThat(serverFabric.localAddress()).isNotEqualTo(before);
        HangGuard.waitFor(() -> serverFabric.statistics().connections() == 0
                && clientFabric.statistics().connections() == 0);

        try (EfaFabric newcomerFabric = network.newFabric()) {
            RdmaRpcClient newcomer = connect(newcomerFabric);
            assertThat(crc(newcomer, 5000)).isEqualTo(ChunkProgram.crc(ChunkProgram.pattern(5000)));
            newcomer.close();
        }
        client.close();
        client = connect(clientFabric);
        assertThat(crc(client, 70_000)).isEqualTo(ChunkProgram.crc(ChunkProgram.pattern(70_000)));

        EfaFabricStatistics server = serverFabric.statistics();
        assertThat(server.connections()).isEqualTo(1);
        assertThat(server.progressLoopFailures()).isZero();
        closeAllAndCheckNothingIsLeft(clientFabric);
    }

    @Test
    void theServerDropsTheConnectionOfARestartedClientAndServesItsNewOne() throws Exception {
        program.gate = new CountDownLatch(1);
        CompletableFuture<Throwable> held = callAsync(client);
        HangGuard.waitFor(() -> svc.statistics().callsInProgress() == 1);

        network.restart(clientFabric);

        assertThat(held.get(PROMPT_S, TimeUnit.SECONDS)).isInstanceOf(RdmaTransportException.class);
        HangGuard.waitFor(() -> serverFabric.statistics().connections() == 0);
        program.gate.countDown();
        HangGuard.waitFor(() -> svc.statistics().callsInProgress() == 0);
        client.close();
        client = connect(clientFabric);
        assertThat(crc(client, 70_000)).isEqualTo(ChunkProgram.crc(ChunkProgram.pattern(70_000)));
        assertThat(serverFabric.statistics().connections()).isEqualTo(1);
        closeAllAndCheckNothingIsLeft(clientFabric);
    }

    private RdmaRpcClient connect(EfaFabric fabric) throws Exception {
        return RdmaRpcClient.builder(fabric, serverFabric.localAddress()).withDdpPolicy(ChunkProgram.POLICY)
                .withConnectTimeout(Duration.ofSeconds(PROMPT_S))
                .withReconnectPolicy(ReconnectPolicy.NEVER).connect();
    }

    /** @return the CRC the server computed of {@code length} bytes sent to it (a Read chunk when large) */
    private static int crc(RdmaRpcClient on, int length) throws Exception {
        XdrInt result = new XdrInt();
        new RpcCall(ChunkProgram.PROGRAM.getNumber(), ChunkProgram.PROGRAM.getVersion(), new RpcAuthTypeNone(),
                on.transport()).call(ChunkProgram.PUT, new TestProgram.Opaque(ChunkProgram.pattern(length)), result,
                HANG_GUARD_S, TimeUnit.SECONDS);
        return result.intValue();
    }

    private static Throwable crcFails(RdmaRpcClient on) {
        try {
            crc(on, 100);
            return null;
        } catch (Exception e) {
            return e;
        }
    }

    /** @return completes with how a call the program may hold back failed, or null if it was answered */
    private CompletableFuture<Throwable> callAsync(RdmaRpcClient on) {
        return CompletableFuture.supplyAsync(() -> crcFails(on), workers);
    }

    private void closeAllAndCheckNothingIsLeft(EfaFabric... others) throws Exception {
        client.close();
        svc.stop();
        for (EfaFabric fabric : others) {
            fabric.close();
        }
        serverFabric.close();
        assertThat(network.devices()).as("simulated devices").isZero();
        for (EfaFabric fabric : new EfaFabric[] {serverFabric, clientFabric}) {
            SimHarness.assertHoldsNothing(fabric);
        }
    }
}
