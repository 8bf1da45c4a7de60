package org.rpcrdma4j.fabric.efa.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.EndpointGauge;
import org.rpcrdma4j.fabric.FabricConnection;
import org.rpcrdma4j.fabric.FabricStatus;
import org.rpcrdma4j.fabric.conformance.HangGuard;
import org.rpcrdma4j.fabric.conformance.RawPeer;
import org.rpcrdma4j.fabric.efa.EfaFabric;
import org.rpcrdma4j.fabric.efa.EfaFabricStatistics;
import org.rpcrdma4j.fabric.efa.SimulatedEfa;

/**
 * Messages a peer sent on a connection that no receive took are dropped when the connection ends,
 * although the peer stays in the endpoint's address vector: they can neither pile up until the peer
 * leaves nor reach a later connection under the same id.
 */
class EndedConnectionTagTest {

    private static final long SEED = Long.getLong("rpcrdma4j.seed", 8166_6);
    private static final int RECEIVES = 32;
    private static final int UNTAKEN = 5;

    @Test
    void whatNoReceiveTookIsDroppedWhenTheConnectionEnds() throws Exception {
        try (SimulatedEfa network = SimulatedEfa.start(SEED);
             EfaFabric serverFabric = network.newFabric();
             EfaFabric clientFabric = network.newFabric()) {
            RawPeer server = new RawPeer(serverFabric);
            server.repost = false;
            RawPeer client = new RawPeer(clientFabric);
            CompletableFuture<FabricConnection> accepted = server.accept();
            assertThat(client.connect(serverFabric.localAddress())).isNotNull();
            accepted.get(RawPeer.HANG_GUARD_S, TimeUnit.SECONDS);
            for (int i = 0; i < RECEIVES + UNTAKEN; i++) {
                client.send(new byte[] {(byte) i});
            }
            HangGuard.waitFor(() -> server.data.size() == RECEIVES
                    && unexpected(serverFabric.statistics()) == UNTAKEN);

            server.close();

            EfaFabricStatistics after = serverFabric.statistics();
            assertThat(unexpected(after)).isZero();
            assertThat(after.endpoint().gauge(EndpointGauge.UNEXPECTED_BYTES)).isZero();
            assertThat(after.endpoint().counter(EndpointCounter.CLOSED_TAG_MESSAGES)).isEqualTo(UNTAKEN);
            assertThat(client.ends.poll(RawPeer.HANG_GUARD_S, TimeUnit.SECONDS))
                    .isEqualTo(FabricStatus.CLOSED);
        }
    }

    private static long unexpected(EfaFabricStatistics statistics) {
        return statistics.endpoint().gauge(EndpointGauge.UNEXPECTED_MESSAGES);
    }
}
