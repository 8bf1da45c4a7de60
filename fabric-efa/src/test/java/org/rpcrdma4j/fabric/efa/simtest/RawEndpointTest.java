package org.rpcrdma4j.fabric.efa.simtest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.efa.CompletionEntry;
import org.rpcrdma4j.efa.EfaEndpoint;
import org.rpcrdma4j.efa.EndpointAddress;
import org.rpcrdma4j.efa.EndpointConfig;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.fabric.efa.EfaFabric;
import org.rpcrdma4j.fabric.efa.RawEndpoint;
import org.rpcrdma4j.fabric.efa.SimulatedEfa;

/**
 * A raw endpoint ({@link SimulatedEfa#newEndpoint}) sends what a test likes, on any tag, to fabrics and to
 * other raw endpoints of the network, and is driven on the network's progress thread.
 */
class RawEndpointTest {

    private static final long SEED = Long.getLong("rpcrdma4j.seed", 8166_26);
    private static final long ANY_TAG = 0x0123_4567_89ab_cdefL;
    private static final int MESSAGES = 100;

    @Test
    void twoRawEndpointsExchangeAMessageOnAnyTag() throws Exception {
        try (SimulatedEfa network = SimulatedEfa.start(SEED);
             RawEndpoint sender = network.newEndpoint(EndpointConfig.DEFAULT);
             RawEndpoint receiver = network.newEndpoint(EndpointConfig.DEFAULT)) {
            ByteBuffer buffer = ByteBuffer.allocate(64);
            boolean posted = receiver.call(endpoint ->
                    endpoint.recvTagged(EfaEndpoint.ADDR_UNSPEC, buffer, ANY_TAG, 0, 1));
            assertThat(posted).isTrue();
            EndpointAddress to = receiver.address();
            byte[] hello = "hello".getBytes(StandardCharsets.US_ASCII);
            boolean sent = sender.call(endpoint -> endpoint.sendTagged(endpoint.insert(to), ByteBuffer.wrap(hello),
                    ANY_TAG, 2));
            assertThat(sent).isTrue();

            CompletionEntry received = next(receiver);
            assertThat(received.ok()).isTrue();
            assertThat(received.tag()).isEqualTo(ANY_TAG);
            assertThat(received.length()).isEqualTo(hello.length);
            assertThat(buffer.array()).startsWith(hello);
            assertThat(next(sender).ok()).isTrue();
        }
    }

    @Test
    void aFabricDropsWhatARawEndpointSendsOnATagItNeverOpenedAndServesOn() throws Exception {
        SimulatedEfa network = SimulatedEfa.start(SEED);
        try (Served served = new Served(network, network.newFabric(), network.newFabric());
             RawEndpoint raw = network.newEndpoint(EndpointConfig.DEFAULT)) {
            long server = raw.call(endpoint -> endpoint.insert(
                    EfaFabric.endpointAddressOf(served.serverFabric.localAddress())));
            for (int i = 0; i < MESSAGES; i++) {
                long context = i;
                boolean sent = raw.call(endpoint -> endpoint.sendTagged(server, ByteBuffer.allocate(100), ANY_TAG,
                        context));
                assertThat(sent).isTrue();
            }

            Served.waitFor(() ->
                    Served.counter(served.serverFabric, EndpointCounter.UNDECLARED_TAG_MESSAGES) == MESSAGES);
            served.ping();
            assertThat(raw.statistics().counters().get(EndpointCounter.PEERS_UNREACHABLE)).isZero();
        }
    }

    @Test
    void workOnARawEndpointRunsOnTheNetworksProgressThreadAlsoWhenCalledFromIt() throws Exception {
        try (SimulatedEfa network = SimulatedEfa.start(SEED);
             EfaFabric fabric = network.newFabric();
             RawEndpoint raw = network.newEndpoint(EndpointConfig.DEFAULT)) {
            Thread progress = raw.call(endpoint -> Thread.currentThread());
            assertThat(progress).isNotSameAs(Thread.currentThread());

            CompletableFuture<Thread> fromTheProgressThread = new CompletableFuture<>();
            fabric.execute(() -> fromTheProgressThread.complete(raw.call(endpoint -> Thread.currentThread())));
            assertThat(fromTheProgressThread.get(Served.HANG_GUARD_S, TimeUnit.SECONDS)).isSameAs(progress);
        }
    }

    /** @return the raw endpoint's next completion, waiting for it */
    private static CompletionEntry next(RawEndpoint raw) throws InterruptedException {
        List<CompletionEntry> entries = new ArrayList<>();
        Served.waitFor(() -> raw.call(endpoint -> endpoint.poll(entries::add, 1)) == 1);
        return entries.get(0);
    }
}
