package org.rpcrdma4j.fabric.efa.simtest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.dcache.oncrpc4j.xdr.XdrInt;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.fabric.conformance.ChunkProgram;
import org.rpcrdma4j.fabric.conformance.TestProgram;
import org.rpcrdma4j.fabric.efa.EfaFabric;
import org.rpcrdma4j.fabric.efa.SimulatedEfa;
import org.rpcrdma4j.transport.ReconnectPolicy;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcClient;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvc;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;

/**
 * A {@link BulkProgram} service on one fabric of a simulated network and a client of it on another, all
 * through the public API; closing it closes them all and the network. The client does not connect again
 * when its connection is lost ({@link ReconnectPolicy#NEVER}), so its calls fail at once.
 */
final class Served implements AutoCloseable {

    /** Far longer than anything takes: a call that fails only by timing out fails its test. */
    static final long HANG_GUARD_S = 30;

    final SimulatedEfa network;
    final EfaFabric serverFabric;
    final EfaFabric clientFabric;
    final RdmaRpcSvc svc;
    final RdmaRpcClient client;
    private final ExecutorService workers = Executors.newFixedThreadPool(4);
    private final ExecutorService callers = Executors.newFixedThreadPool(8);

    Served(SimulatedEfa network, EfaFabric serverFabric, EfaFabric clientFabric) throws Exception {
        this.network = network;
        this.serverFabric = serverFabric;
        this.clientFabric = clientFabric;
        svc = new RdmaRpcSvcBuilder().withFabric(serverFabric).withWorkerThreadExecutionService(workers)
                .withRpcService(BulkProgram.PROGRAM, new BulkProgram()).withDdpPolicy(BulkProgram.POLICY).build();
        svc.start();
        client = connect(clientFabric);
    }

    /** A client of the service on a fabric, which does not connect again. */
    RdmaRpcClient connect(EfaFabric fabric) throws Exception {
        return RdmaRpcClient.builder(fabric, serverFabric.localAddress()).withDdpPolicy(BulkProgram.POLICY)
                .withConnectTimeout(Duration.ofSeconds(HANG_GUARD_S)).withReconnectPolicy(ReconnectPolicy.NEVER)
                .connect();
    }

    void ping() throws Exception {
        BulkProgram.on(client.transport()).call(BulkProgram.NULL, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID,
                HANG_GUARD_S, TimeUnit.SECONDS);
    }

    byte[] echo(byte[] data) throws Exception {
        TestProgram.Opaque result = new TestProgram.Opaque();
        BulkProgram.on(client.transport()).call(BulkProgram.ECHO, new TestProgram.Opaque(data), result,
                HANG_GUARD_S, TimeUnit.SECONDS);
        return result.bytes;
    }

    /** @return the echo of {@code data}, called on one of eight caller threads */
    CompletableFuture<byte[]> echoAsync(byte[] data) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return echo(data);
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }, callers);
    }

    /** Echoes {@code calls} messages of different lengths from eight threads at once; each must come back whole. */
    void echoConcurrently(int calls) throws Exception {
        echoConcurrently(calls, 100);
    }

    /**
     * Echoes {@code calls} messages of {@code shortest} bytes and more from eight threads at once; each must come
     * back whole.
     */
    void echoConcurrently(int calls, int shortest) throws Exception {
        List<CompletableFuture<byte[]>> echoes = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            echoes.add(echoAsync(ChunkProgram.pattern(shortest + i)));
        }
        for (int i = 0; i < calls; i++) {
            assertThat(echoes.get(i).get(HANG_GUARD_S, TimeUnit.SECONDS)).isEqualTo(ChunkProgram.pattern(shortest + i));
        }
    }

    /** @return the length the server read of {@code length} bytes sent in a Read chunk */
    int put(int length) throws Exception {
        XdrInt result = new XdrInt();
        BulkProgram.on(client.transport()).call(BulkProgram.PUT, new TestProgram.Opaque(ChunkProgram.pattern(length)),
                result, HANG_GUARD_S, TimeUnit.SECONDS);
        return result.intValue();
    }

    /** @return {@code length} bytes the server wrote into a Write chunk */
    byte[] get(int length) throws Exception {
        TestProgram.Opaque result = new TestProgram.Opaque();
        BulkProgram.on(client.transport()).call(BulkProgram.GET, new XdrInt(length), result,
                HANG_GUARD_S, TimeUnit.SECONDS);
        return result.bytes;
    }

    /** @return a fabric's endpoint counter */
    static long counter(EfaFabric fabric, EndpointCounter counter) {
        return fabric.statistics().endpoint().counter(counter);
    }

    /** Polls a condition the transport reaches on its own threads, failing after the hang guard. */
    static void waitFor(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(HANG_GUARD_S);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not reached (hang guard)");
            }
            Thread.sleep(1);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            client.close();
            svc.stop();
        } finally {
            clientFabric.close();
            serverFabric.close();
            network.close();
            workers.shutdownNow();
            callers.shutdownNow();
        }
    }
}
