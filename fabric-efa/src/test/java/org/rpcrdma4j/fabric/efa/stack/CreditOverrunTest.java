package org.rpcrdma4j.fabric.efa.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.fabric.FabricStatus;
import org.rpcrdma4j.fabric.conformance.HangGuard;
import org.rpcrdma4j.fabric.conformance.RawPeer;
import org.rpcrdma4j.fabric.conformance.TestProgram;
import org.rpcrdma4j.fabric.efa.EfaFabric;
import org.rpcrdma4j.fabric.efa.SimulatedEfa;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcClient;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvc;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;

/**
 * A requester that sends far more calls than its grant, faster than the server takes them, until the
 * server's endpoint drops its messages for lack of room: the server closes its connection as a
 * receiver-not-ready overrun, which the requester hears at once with the reason, the calls the server
 * had taken end, and a good client of the same server is served throughout.
 */
class CreditOverrunTest {

    private static final long SEED = Long.getLong("rpcrdma4j.seed", 8166_6);
    private static final int GRANT = TransportConfig.DEFAULT_RESPONDER_CREDITS;
    private static final int CALLS = 2000;

    private final ExecutorService workers = Executors.newFixedThreadPool(4);
    private SimulatedEfa network;
    private EfaFabric serverFabric;
    private EfaFabric goodFabric;
    private EfaFabric greedyFabric;
    private RdmaRpcSvc svc;
    private RdmaRpcClient good;

    @BeforeEach
    void setUp() throws Exception {
        network = SimulatedEfa.start(SEED);
        serverFabric = network.newFabric();
        goodFabric = network.newFabric();
        greedyFabric = network.newFabric();
        svc = new RdmaRpcSvcBuilder().withFabric(serverFabric).withWorkerThreadExecutionService(workers)
                .withConfig(TransportConfig.DEFAULT.withResponderCredits(GRANT))
                .withRpcService(TestProgram.PROGRAM, new TestProgram()).build();
        svc.start();
        good = RdmaRpcClient.builder(goodFabric, serverFabric.localAddress())
                .withConnectTimeout(Duration.ofSeconds(RawPeer.HANG_GUARD_S)).connect();
    }

    @AfterEach
    void tearDown() throws Exception {
        good.close();
        svc.stop();
        greedyFabric.close();
        goodFabric.close();
        serverFabric.close();
        network.close();
        workers.shutdownNow();
    }

    @Test
    void aRequesterThatOverrunsItsGrantIsClosedForItWhileAGoodClientGoesOn() throws Exception {
        AtomicLong completed = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean running = new AtomicBoolean(true);
        Thread load = new Thread(() -> {
            for (int i = 0; running.get(); i++) {
                try {
                    echo(i);
                    completed.incrementAndGet();
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                    return;
                }
            }
        }, "good-client");
        load.start();
        RawPeer greedy = new RawPeer(greedyFabric);
        greedy.connect(serverFabric.localAddress());
        HangGuard.waitFor(() -> completed.get() > 0);
        long goodBefore = completed.get();

        for (int i = 0; i < CALLS; i++) {
            greedy.send(RawPeer.echoCall(0x7000 + i, new byte[] {(byte) i}));
        }

        // Its end comes with the reason, not after a timeout of its calls.
        assertThat(greedy.ends.poll(RawPeer.HANG_GUARD_S, TimeUnit.SECONDS)).as("the greedy connection's end")
                .isEqualTo(FabricStatus.RECEIVER_NOT_READY);
        assertThat(greedy.endDetail).contains("overran its credits");
        HangGuard.waitFor(() -> svc.statistics().connections() == 1 && svc.statistics().callsInProgress() == 0);
        assertThat(greedy.data.size()).as("answers").isLessThan(CALLS);
        assertThat(serverFabric.statistics().endpoint().counter(EndpointCounter.UNEXPECTED_DROPPED_MESSAGES))
                .isPositive();
        assertThat(serverFabric.statistics().overrunConnections()).isEqualTo(1);

        long goodDuring = completed.get();
        assertThat(goodDuring).as("the good client's calls during the overrun").isGreaterThan(goodBefore);
        HangGuard.waitFor(() -> failure.get() != null || completed.get() > goodDuring);
        running.set(false);
        load.join(TimeUnit.SECONDS.toMillis(RawPeer.HANG_GUARD_S));
        assertThat(failure.get()).as("the good client's calls").isNull();
        System.out.printf("overrun: %d of %d calls answered before the close; the good client completed %d%n",
                greedy.data.size(), CALLS, completed.get());
    }

    private void echo(int i) throws Exception {
        TestProgram.Opaque result = new TestProgram.Opaque();
        byte[] data = {(byte) i, (byte) (i >> 8)};
        new RpcCall(TestProgram.PROGRAM.getNumber(), TestProgram.PROGRAM.getVersion(), new RpcAuthTypeNone(),
                good.transport()).call(TestProgram.ECHO, new TestProgram.Opaque(data), result,
                RawPeer.HANG_GUARD_S, TimeUnit.SECONDS);
        assertThat(result.bytes).isEqualTo(data);
    }
}
