package org.rpcrdma4j.fabric.efa.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.efa.EndpointConfig;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.EndpointLimits;
import org.rpcrdma4j.efa.device.sim.FaultPlan;
import org.rpcrdma4j.fabric.FabricStatus;
import org.rpcrdma4j.fabric.conformance.HangGuard;
import org.rpcrdma4j.fabric.conformance.RawPeer;
import org.rpcrdma4j.fabric.conformance.TestProgram;
import org.rpcrdma4j.fabric.efa.EfaFabric;
import org.rpcrdma4j.fabric.efa.SimulatedEfa;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.TransportStatistics;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcClient;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvc;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;
import org.rpcrdma4j.xdr.HeaderEncoder;
import org.rpcrdma4j.xdr.RpcRdmaHeader;

/**
 * Peers that attack a server beside well-behaved clients: the good clients' completed calls keep
 * rising while the attack goes on (sampled, never timed), the attacker costs only itself, and once it
 * is gone the server's gauges and this JVM's heap are back at their baseline.
 */
class PeerAttackTest {

    private static final long SEED = Long.getLong("rpcrdma4j.seed", 8166_4);
    private static final int GOOD_CLIENTS = 3;
    /** How many times the good clients must be seen progressing while the attack progresses too. */
    private static final int SAMPLES = 5;
    /** Garbage sent per attacking connection, beyond what the server takes from one. */
    private static final int GARBAGE_PER_CONNECTION = TransportConfig.PROTOCOL_ERRORS_PER_CONNECTION + 4;
    /** What the garbage attackers send in all, at least: more than any leak could hide in the heap check. */
    private static final long GARBAGE_BYTES = 16L << 20;
    private static final long HEAP_SLACK = 8L << 20;
    /**
     * The server stops retrying a peer stuck in RNR after 0.1 s of virtual time (100,000 progress
     * cycles), retrying every 1 ms at most: the sampling needs a few retries, a loaded machine the
     * fewest cycles.
     */
    private static final EndpointConfig ENDPOINTS = EndpointConfig.DEFAULT.withRnrBackoff(40_000, 120_000, 1_000_000)
            .withLimits(EndpointLimits.DEFAULT.withPeerUnreachableNs(100_000_000));

    private final ExecutorService workers = Executors.newFixedThreadPool(4);
    private SimulatedEfa network;
    private EfaFabric serverFabric;
    private EfaFabric attackerFabric;
    private RdmaRpcSvc svc;
    private final List<EfaFabric> goodFabrics = new ArrayList<>();
    private final List<RdmaRpcClient> goodClients = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        network = SimulatedEfa.builder(SEED).withEndpointConfig(ENDPOINTS).start();
        serverFabric = network.newFabric();
        svc = new RdmaRpcSvcBuilder().withFabric(serverFabric).withWorkerThreadExecutionService(workers)
                .withRpcService(TestProgram.PROGRAM, new TestProgram()).build();
        svc.start();
        for (int i = 0; i < GOOD_CLIENTS; i++) {
            EfaFabric fabric = network.newFabric();
            goodFabrics.add(fabric);
            RdmaRpcClient client = RdmaRpcClient.builder(fabric, serverFabric.localAddress())
                    .withConnectTimeout(Duration.ofSeconds(RawPeer.HANG_GUARD_S)).connect();
            goodClients.add(client);
            echo(client, i);
        }
        attackerFabric = network.newFabric();
    }

    @AfterEach
    void tearDown() throws Exception {
        goodClients.forEach(RdmaRpcClient::close);
        svc.stop();
        goodFabrics.forEach(EfaFabric::close);
        attackerFabric.close();
        serverFabric.close();
        network.close();
        workers.shutdownNow();
    }

    @Test
    void wellFormedHeadersFollowedByGarbageCloseTheAttackersConnectionsWhileTheGoodClientsGoOn() throws Exception {
        garbageAttack(PeerAttackTest::headerThenGarbage);
    }

    @Test
    void aFloodOfGarbageClosesTheAttackersConnectionsWhileTheGoodClientsGoOn() throws Exception {
        Random random = new Random(SEED);
        garbageAttack(i -> {
            byte[] garbage = new byte[random.nextInt(TransportConfig.DEFAULT_INLINE_SIZE + 1)];
            random.nextBytes(garbage);
            return garbage;
        });
    }

    @Test
    void aRequesterThatOverrunsItsCreditsThenStopsReceivingIsDroppedWhileTheGoodClientsGoOn() throws Exception {
        Baseline before = quiet();
        RawPeer stuck = new RawPeer(attackerFabric);
        long during;
        try (Load load = new Load()) {
            assertThat(stuck.connect(serverFabric.localAddress())).isNotNull();
            network.setLinkFaults(serverFabric, attackerFabric, FaultPlan.NONE.withRnr(1));
            // Three times the grant: the server answers every call, and every answer meets RNR.
            int grant = TransportConfig.DEFAULT.responderCredits();
            for (int i = 0; i < 3 * grant; i++) {
                stuck.send(RawPeer.echoCall(0x6000 + i, new byte[] {(byte) i}));
            }
            long good = load.completed();
            long retries = rnrRetransmissions();
            for (int sample = 0; sample < SAMPLES; sample++) {
                long goodThen = good;
                long retriesThen = retries;
                HangGuard.waitFor(() -> load.completed() > goodThen && rnrRetransmissions() > retriesThen);
                good = load.completed();
                retries = rnrRetransmissions();
            }
            HangGuard.waitFor(() -> svc.statistics().connections() == GOOD_CLIENTS);
            long goodThen = load.completed();
            HangGuard.waitFor(() -> load.completed() > goodThen);
            during = load.completed();
        }
        assertThat(serverFabric.statistics().endpoint().counter(EndpointCounter.PEERS_UNREACHABLE)).isEqualTo(1);
        network.clearLinkFaults(serverFabric, attackerFabric);
        attackerFabric.close();
        System.out.printf("overrun then RNR: the good clients completed %d calls during the attack%n", during);
        after("overrun then RNR", before);
    }

    /**
     * An attacker that connects, sends garbage until the server closes its connection, and connects
     * again, until the good clients were seen progressing {@link #SAMPLES} times while the server
     * counted more protocol errors each time, and {@link #GARBAGE_BYTES} went out.
     */
    private void garbageAttack(IntFunction<byte[]> garbage) throws Exception {
        Baseline before = quiet();
        AtomicLong sentBytes = new AtomicLong();
        AtomicLong closedByServer = new AtomicLong();
        AtomicReference<Throwable> attackFailed = new AtomicReference<>();
        long during;
        Thread attacker = new Thread(() -> {
            RawPeer peer = new RawPeer(attackerFabric);
            try {
                for (int message = 0; !Thread.currentThread().isInterrupted(); ) {
                    assertThat(peer.connect(serverFabric.localAddress())).as("connected").isNotNull();
                    for (int i = 0; i < GARBAGE_PER_CONNECTION; i++, message++) {
                        byte[] bytes = garbage.apply(message);
                        peer.send(bytes);
                        sentBytes.addAndGet(bytes.length);
                    }
                    assertThat(peer.ends.poll(RawPeer.HANG_GUARD_S, TimeUnit.SECONDS)).isEqualTo(FabricStatus.CLOSED);
                    closedByServer.incrementAndGet();
                    peer.data.clear();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Throwable e) {
                attackFailed.set(e);
            }
        }, "attacker");
        try (Load load = new Load()) {
            attacker.start();
            long good = load.completed();
            long errors = svc.statistics().protocolErrors();
            for (int sample = 0; sample < SAMPLES || sentBytes.get() < GARBAGE_BYTES; sample++) {
                long goodThen = good;
                long errorsThen = errors;
                HangGuard.waitFor(() -> attackFailed.get() != null
                        || load.completed() > goodThen && svc.statistics().protocolErrors() > errorsThen);
                assertThat(attackFailed.get()).as("the attacker's own failure").isNull();
                good = load.completed();
                errors = svc.statistics().protocolErrors();
            }
            attacker.interrupt();
            attacker.join(TimeUnit.SECONDS.toMillis(RawPeer.HANG_GUARD_S));
            during = load.completed();
        }
        assertThat(attackFailed.get()).as("the attacker's own failure").isNull();
        TransportStatistics server = svc.statistics();
        assertThat(server.connectionsClosedForErrors()).as("each attacking connection closed by the server")
                .isGreaterThanOrEqualTo(closedByServer.get()).isPositive();
        assertThat(server.protocolErrors())
                .isGreaterThanOrEqualTo(closedByServer.get() * TransportConfig.PROTOCOL_ERRORS_PER_CONNECTION);
        attackerFabric.close();
        System.out.printf("garbage: %d bytes in %d connections closed by the server; the good clients completed %d"
                + " calls during the attack%n", sentBytes.get(), closedByServer.get(), during);
        after("garbage", before);
    }

    /** An RDMA_MSG whose header is well formed and whose RPC message is not. */
    private static byte[] headerThenGarbage(int i) {
        int xid = 0x7000 + i;
        ByteBuffer rpc = switch (i % 3) {
            case 0 -> ByteBuffer.allocate(4000).putInt(xid).putInt(7);               // neither CALL nor REPLY
            case 1 -> ByteBuffer.allocate(12).putInt(xid).putInt(0).putInt(2);       // a CALL cut short
            default -> ByteBuffer.allocate(3);                                         // not even an XID
        };
        RpcRdmaHeader header = RpcRdmaHeader.msg(xid, 64, null, null, null);
        ByteBuffer message = ByteBuffer.allocate(HeaderEncoder.encodedLength(header) + rpc.capacity());
        message.put(HeaderEncoder.encode(header, message, 0), rpc.array());
        return message.array();
    }

    /** The server with only the good clients connected, idle: its gauges and this JVM's heap. */
    private record Baseline(Map<String, Long> gauges, int connections, long heap) {
    }

    private Baseline quiet() throws InterruptedException {
        HangGuard.waitFor(() -> svc.statistics().callsInProgress() == 0);
        Map<String, Long> gauges = serverFabric.statistics().gauges();
        return new Baseline(gauges, serverFabric.statistics().connections(), SimHarness.usedHeap());
    }

    /** Once the attacker is gone and the good clients idle, everything is as it was before the attack. */
    private void after(String attack, Baseline before) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(RawPeer.HANG_GUARD_S);
        while (!serverFabric.statistics().gauges().equals(before.gauges()) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(serverFabric.statistics().gauges()).isEqualTo(before.gauges());
        assertThat(serverFabric.statistics().connections()).isEqualTo(before.connections());
        assertThat(serverFabric.statistics().registrations()).isZero();
        TransportStatistics server = svc.statistics();
        assertThat(server.connections()).isEqualTo(GOOD_CLIENTS);
        assertThat(server.callsInProgress()).isZero();
        assertThat(server.chunkRegistrations()).isZero();
        long retained = SimHarness.usedHeap() - before.heap();
        System.out.printf("%s: server %s; heap %d KiB before, %+d KiB after%n", attack, server,
                before.heap() >> 10, retained >> 10);
        assertThat(retained).as("heap retained after the attack").isLessThan(HEAP_SLACK);
        for (RdmaRpcClient client : goodClients) {
            echo(client, 1);
        }
    }

    private long rnrRetransmissions() {
        return serverFabric.statistics().endpoint().counter(EndpointCounter.RNR_RETRANSMISSIONS);
    }

    private static void echo(RdmaRpcClient client, int i) throws Exception {
        TestProgram.Opaque result = new TestProgram.Opaque();
        byte[] data = {(byte) i, (byte) (i >> 8)};
        new RpcCall(TestProgram.PROGRAM.getNumber(), TestProgram.PROGRAM.getVersion(), new RpcAuthTypeNone(),
                client.transport()).call(TestProgram.ECHO, new TestProgram.Opaque(data), result,
                RawPeer.HANG_GUARD_S, TimeUnit.SECONDS);
        assertThat(result.bytes).isEqualTo(data);
    }

    /** The good clients, each calling ECHO one call after another on a thread of its own until closed. */
    private final class Load implements AutoCloseable {

        private final AtomicLong completed = new AtomicLong();
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private final List<Thread> threads = new ArrayList<>();
        private volatile boolean running = true;

        Load() {
            for (RdmaRpcClient client : goodClients) {
                Thread thread = new Thread(() -> {
                    for (int i = 0; running; i++) {
                        try {
                            echo(client, i);
                            completed.incrementAndGet();
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                            return;
                        }
                    }
                }, "good-client");
                threads.add(thread);
                thread.start();
            }
        }

        /** @return calls the good clients completed, each checked; fails the test if one failed */
        long completed() {
            assertThat(failure.get()).as("a good client's call").isNull();
            return completed.get();
        }

        @Override
        public void close() throws InterruptedException {
            running = false;
            for (Thread thread : threads) {
                thread.join(TimeUnit.SECONDS.toMillis(RawPeer.HANG_GUARD_S));
            }
            assertThat(failure.get()).as("a good client's call").isNull();
        }
    }
}
