package org.rpcrdma4j.fabric.efa;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.dcache.oncrpc4j.portmap.GenericPortmapClient;
import org.dcache.oncrpc4j.portmap.OncRpcbindServer;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.efa.EndpointConfig;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.EndpointGauge;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcClient;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvc;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;

/**
 * A peer that floods a server with 60 KB messages on a tag the transport never uses (4,000 of them
 * once held 172 MiB until the peer went away): an endpoint that declares the transport's tags
 * ({@link EfaFabric#tags()}, as {@link SimulatedEfa} does) drops each on arrival and holds nothing,
 * while a client of the same server keeps being served.
 */
class UndeclaredTagFloodTest {

    private static final long SEED = Long.getLong("rpcrdma4j.seed", 8166_5);
    private static final long UNUSED_TAG = EfaFabric.DATA_TAG - 1;
    private static final int FLOOD = 4000;
    private static final int FLOOD_SIZE = 60_000;
    private static final int SAMPLES = 5;
    private static final long HANG_GUARD_S = 30;

    @Test
    void aFloodOnATagNoReceiveWillMatchIsDroppedOnArrivalWhileAClientIsServed() throws Exception {
        ExecutorService workers = Executors.newFixedThreadPool(2);
        try (SimulatedEfa network = SimulatedEfa.start(SEED);
             EfaFabric server = network.newFabric();
             EfaFabric client = network.newFabric();
             RawEndpoint attacker = network.newEndpoint(EndpointConfig.DEFAULT)) {
            RdmaRpcSvc svc = new RdmaRpcSvcBuilder().withFabric(server).withWorkerThreadExecutionService(workers)
                    .withRpcService(new OncRpcProgram(100000, 2), new OncRpcbindServer()).build();
            svc.start();
            try (RdmaRpcClient rdma = RdmaRpcClient.builder(client, server.localAddress())
                    .withConnectTimeout(Duration.ofSeconds(HANG_GUARD_S)).connect()) {
                GenericPortmapClient portmap = new GenericPortmapClient(rdma.transport());
                AtomicLong pings = new AtomicLong();
                AtomicReference<Throwable> failed = new AtomicReference<>();
                Thread good = new Thread(() -> {
                    try {
                        while (!Thread.currentThread().isInterrupted() && portmap.ping()) {
                            pings.incrementAndGet();
                        }
                    } catch (Exception e) {
                        failed.set(e);
                    }
                }, "good-client");
                good.start();

                AtomicInteger sent = new AtomicInteger();
                long serverHandle = attacker.call(endpoint -> endpoint.insert(
                        EfaFabric.endpointAddressOf(server.localAddress())));
                int bothRose = 0;
                while (dropped(server) < FLOOD) {
                    // Read before the sends, which may all be dropped before the call returns.
                    long pingsThen = pings.get();
                    long droppedThen = dropped(server);
                    attacker.call(endpoint -> {
                        // A send's entry is the attacker's until its completion is polled.
                        endpoint.poll(entry -> { }, Integer.MAX_VALUE);
                        while (sent.get() < FLOOD
                                && endpoint.sendTagged(serverHandle, ByteBuffer.allocate(FLOOD_SIZE), UNUSED_TAG, 0)) {
                            sent.incrementAndGet();
                        }
                        return null;
                    });
                    waitFor(() -> failed.get() != null || dropped(server) >= FLOOD
                            || pings.get() > pingsThen && dropped(server) > droppedThen);
                    assertThat(failed.get()).as("the good client's calls").isNull();
                    assertThat(server.statistics().endpoint().gauge(EndpointGauge.UNEXPECTED_BYTES)).isZero();
                    if (pings.get() > pingsThen && dropped(server) > droppedThen) {
                        bothRose++;
                    }
                }
                assertThat(bothRose).as("samples in which the client was served while the flood was dropped")
                        .isGreaterThanOrEqualTo(SAMPLES);
                good.interrupt();
                good.join(TimeUnit.SECONDS.toMillis(HANG_GUARD_S));
                assertThat(failed.get()).as("the good client's calls").isNull();
                assertThat(server.statistics().endpoint().counter(EndpointCounter.UNEXPECTED_MESSAGES)).isZero();
                assertThat(server.statistics().endpoint().gauge(EndpointGauge.UNEXPECTED_MESSAGES)).isZero();
                System.out.printf("undeclared tag: %d messages of %d bytes dropped on arrival; %d NULL calls served"
                        + " meanwhile%n", FLOOD, FLOOD_SIZE, pings.get());
            } finally {
                svc.stop();
            }
        } finally {
            workers.shutdownNow();
        }
    }

    private static long dropped(EfaFabric server) {
        return server.statistics().endpoint().counter(EndpointCounter.UNDECLARED_TAG_MESSAGES);
    }

    private static void waitFor(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(HANG_GUARD_S);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition reached within the hang guard").isLessThan(deadline);
            Thread.sleep(1);
        }
    }
}
