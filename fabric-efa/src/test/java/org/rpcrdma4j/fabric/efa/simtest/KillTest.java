package org.rpcrdma4j.fabric.efa.simtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.fabric.efa.EfaFabric;
import org.rpcrdma4j.fabric.efa.SimulatedEfa;
import org.rpcrdma4j.transport.RdmaTransportException;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcClient;

/**
 * A fabric whose process dies ({@link SimulatedEfa#kill}) says nothing: its own connections end at once,
 * its device is gone and the network forgets it, and a peer learns of it when it next sends, from a
 * failure rather than a timeout.
 */
class KillTest {

    private static final long SEED = Long.getLong("rpcrdma4j.seed", 8166_24);

    @Test
    void theNextCallToAKilledServerFailsAtOnce() throws Exception {
        try (Served served = served()) {
            served.ping();
            int devices = served.network.devices();

            served.network.kill(served.serverFabric);

            assertThat(served.serverFabric.isClosed()).isTrue();
            assertThat(served.network.devices()).isEqualTo(devices - 1);
            assertThat(served.svc.statistics().connections()).isZero();
            assertThatThrownBy(served::ping).isInstanceOf(RdmaTransportException.class)
                    .hasMessageContaining("PEER_UNREACHABLE");
            Served.waitFor(() -> served.clientFabric.statistics().connections() == 0);
            assertThatThrownBy(() -> served.network.restart(served.serverFabric))
                    .as("a killed fabric is no longer the network's").isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void aKilledClientsCallFailsAtOnceAndItsServerServesOthers() throws Exception {
        try (Served served = served(); EfaFabric otherFabric = served.network.newFabric()) {
            served.ping();

            served.network.kill(served.clientFabric);

            assertThatThrownBy(served::ping).isInstanceOf(RdmaTransportException.class)
                    .hasMessageContaining("process died");
            assertThat(served.clientFabric.isClosed()).isTrue();
            assertThat(served.clientFabric.statistics().connections()).isZero();
            try (RdmaRpcClient other = served.connect(otherFabric)) {
                BulkProgram.on(other.transport()).call(BulkProgram.NULL, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID,
                        Served.HANG_GUARD_S, TimeUnit.SECONDS);
            }
        }
    }

    private static Served served() throws Exception {
        SimulatedEfa network = SimulatedEfa.start(SEED);
        return new Served(network, network.newFabric(), network.newFabric());
    }
}
