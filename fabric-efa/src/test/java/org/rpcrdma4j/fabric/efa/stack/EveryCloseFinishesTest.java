package org.rpcrdma4j.fabric.efa.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrInt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.efa.EndpointConfig;
import org.rpcrdma4j.efa.device.sim.FaultPlan;
import org.rpcrdma4j.fabric.conformance.ChunkProgram;
import org.rpcrdma4j.fabric.conformance.HangGuard;
import org.rpcrdma4j.fabric.conformance.TestProgram;
import org.rpcrdma4j.fabric.efa.EfaFabric;
import org.rpcrdma4j.fabric.efa.SimulatedEfa;
import org.rpcrdma4j.transport.RdmaTransportException;
import org.rpcrdma4j.transport.ReconnectPolicy;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcClient;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvc;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;
import org.slf4j.LoggerFactory;

/**
 * Every close finishes, also when a peer vanished ({@link SimulatedEfa#restart}: its process is
 * gone, its device comes back knowing nothing) or cannot be told goodbye: once the client, the
 * service and both fabrics are closed, nothing is held (connections, chunk registrations, every
 * endpoint gauge), both simulated devices are gone, and the transport logged nothing at ERROR nor
 * counted a progress-loop failure.
 */
class EveryCloseFinishesTest {

    private static final long SEED = Long.getLong("rpcrdma4j.seed", 8166);
    private static final long HANG_GUARD_S = 30;
    private static final int CHUNK = 65536;

    /**
     * RNR is retried every cycle: a fabric that waits for goodbyes its peer answers RNR to keeps its
     * progress thread busy, so its bounded wait (cycles) passes at once.
     */
    private final SimulatedEfa network = SimulatedEfa.builder(SEED).withEndpointConfig(
            EndpointConfig.DEFAULT.withRnrBackoff(SimulatedEfa.STEP_NS, SimulatedEfa.STEP_NS, SimulatedEfa.STEP_NS))
            .start();
    private final EfaFabric serverFabric = network.newFabric();
    private final EfaFabric clientFabric = network.newFabric();
    private final ChunkProgram program = new ChunkProgram();
    private final ExecutorService workers = Executors.newFixedThreadPool(4);
    private final Logger transportLog = (Logger) LoggerFactory.getLogger("org.rpcrdma4j");
    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
    private RdmaRpcSvc svc;
    private RdmaRpcClient client;

    @BeforeEach
    void serveAndConnect() throws Exception {
        logged.start();
        transportLog.addAppender(logged);
        svc = new RdmaRpcSvcBuilder().withFabric(serverFabric).withConfig(TransportConfig.DEFAULT)
                .withWorkerThreadExecutionService(workers).withRpcService(ChunkProgram.PROGRAM, program)
                .withDdpPolicy(ChunkProgram.POLICY).build();
        svc.start();
        client = RdmaRpcClient.builder(clientFabric, serverFabric.localAddress()).withDdpPolicy(ChunkProgram.POLICY)
                .withConnectTimeout(Duration.ofSeconds(HANG_GUARD_S))
                .withReconnectPolicy(ReconnectPolicy.NEVER).connect();
    }

    @AfterEach
    void stop() {
        program.gate.countDown();
        transportLog.detachAppender(logged);
        workers.shutdownNow();
        network.close();
    }

    @Test
    void closingAfterTheClientVanishedFreesEverything() throws Exception {
        byte[] data = ChunkProgram.pattern(CHUNK);
        assertThat(call(ChunkProgram.PUT, new TestProgram.Opaque(data), new XdrInt()).intValue())
                .isEqualTo(ChunkProgram.crc(data));
        network.restart(clientFabric);
        closeAllAndCheckNothingIsLeft();
    }

    @Test
    void closingAFabricWhoseDeviceRestartedFreesEverything() throws Exception {
        ChunkProgram.GetResult result = call(ChunkProgram.GET, new ChunkProgram.IntPair(CHUNK, 0),
                new ChunkProgram.GetResult());
        assertThat(result.data).isEqualTo(ChunkProgram.pattern(CHUNK));
        network.restart(serverFabric);
        closeAllAndCheckNothingIsLeft();
    }

    @Test
    void closingAfterACallWithAReadChunkFailedAsItsClientRestartedFreesEverything() throws Exception {
        failAsTheClientRestarts(ChunkProgram.PUT, new TestProgram.Opaque(ChunkProgram.pattern(CHUNK)),
                new XdrInt());
        closeAllAndCheckNothingIsLeft();
    }

    @Test
    void closingAfterACallWithAWriteChunkFailedAsItsClientRestartedFreesEverything() throws Exception {
        failAsTheClientRestarts(ChunkProgram.GET, new ChunkProgram.IntPair(CHUNK, 0),
                new ChunkProgram.GetResult());
        closeAllAndCheckNothingIsLeft();
    }

    @Test
    void closingAFabricWhoseCallCannotLeaveFreesItsChunks() throws Exception {
        // The server answers receiver-not-ready: the call's send, the CLOSE and the LEAVE wait until the
        // fabric gives up on its goodbyes and closes the endpoint, which ends them; only then does the
        // connection end and the call's chunk memory go, after the endpoint released it.
        network.setLinkFaults(clientFabric, serverFabric, FaultPlan.NONE.withRnr(1));
        CompletableFuture<Throwable> failed = callAsync(ChunkProgram.PUT,
                new TestProgram.Opaque(ChunkProgram.pattern(CHUNK)), new XdrInt(), HANG_GUARD_S * 1000);
        HangGuard.waitFor(() -> client.statistics().chunkRegistrations() == 1);
        clientFabric.close();
        assertThat(failed.get(HANG_GUARD_S, TimeUnit.SECONDS)).isInstanceOf(RdmaTransportException.class);
        closeAllAndCheckNothingIsLeft();
    }

    /**
     * Makes a call the program holds back, its chunk memory registered (a Read chunk already pulled);
     * then the client's process restarts, which ends the call's connection and fails it at once (no
     * timeout), and the program answers into the void.
     */
    private void failAsTheClientRestarts(int procedure, XdrAble args, XdrAble result) throws Exception {
        program.gate = new CountDownLatch(1);
        CompletableFuture<Throwable> failed = callAsync(procedure, args, result, HANG_GUARD_S * 1000);
        HangGuard.waitFor(() -> svc.statistics().callsInProgress() == 1
                && serverFabric.statistics().registrations() == 0
                && client.statistics().chunkRegistrations() == 1);
        network.restart(clientFabric);
        assertThat(failed.get(HANG_GUARD_S, TimeUnit.SECONDS)).isInstanceOf(RdmaTransportException.class);
        HangGuard.waitFor(() -> client.statistics().chunkRegistrations() == 0);
        program.gate.countDown();
        HangGuard.waitFor(() -> svc.statistics().callsInProgress() == 0);
    }

    private <T extends XdrAble> T call(int procedure, XdrAble args, T result) throws Exception {
        new RpcCall(ChunkProgram.PROGRAM.getNumber(), ChunkProgram.PROGRAM.getVersion(), new RpcAuthTypeNone(),
                client.transport()).call(procedure, args, result, HANG_GUARD_S, TimeUnit.SECONDS);
        return result;
    }

    /** @return completes with how the call failed, or null if it was answered */
    private CompletableFuture<Throwable> callAsync(int procedure, XdrAble args, XdrAble result, long timeoutMs) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                new RpcCall(ChunkProgram.PROGRAM.getNumber(), ChunkProgram.PROGRAM.getVersion(),
                        new RpcAuthTypeNone(), client.transport()).call(procedure, args, result, timeoutMs,
                        TimeUnit.MILLISECONDS);
                return null;
            } catch (Exception e) {
                return e;
            }
        }, workers);
    }

    private void closeAllAndCheckNothingIsLeft() throws Exception {
        client.close();
        svc.stop();
        clientFabric.close();
        serverFabric.close();
        assertThat(clientFabric.isClosed()).isTrue();
        assertThat(serverFabric.isClosed()).isTrue();
        assertThat(network.devices()).as("simulated devices").isZero();
        assertThat(client.statistics().chunkRegistrations()).isZero();
        assertThat(svc.statistics().chunkRegistrations()).isZero();
        for (EfaFabric fabric : new EfaFabric[] {serverFabric, clientFabric}) {
            SimHarness.assertHoldsNothing(fabric);
        }
        assertThat(logged.list).as("logged at ERROR")
                .filteredOn(event -> event.getLevel().isGreaterOrEqual(Level.ERROR)).isEmpty();
    }
}
