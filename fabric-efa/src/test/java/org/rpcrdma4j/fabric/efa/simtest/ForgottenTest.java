package org.rpcrdma4j.fabric.efa.simtest;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.efa.EndpointConfig;
import org.rpcrdma4j.fabric.efa.EfaFabric;
import org.rpcrdma4j.fabric.efa.RawEndpoint;
import org.rpcrdma4j.fabric.efa.SimulatedEfa;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcClient;

/**
 * The network forgets a fabric or raw endpoint as soon as it is closed or killed: its device is gone and
 * nothing of the network's keeps it from being collected, with no newer fabric needed to sweep it out.
 */
class ForgottenTest {

    private static final long SEED = Long.getLong("rpcrdma4j.seed", 8166_25);
    private static final int GC_ROUNDS = 100;

    @Test
    void aClosedFabricIsForgottenAtOnce() throws Exception {
        try (Served served = served()) {
            WeakReference<EfaFabric> closed = callFromAFabricThenEnd(served, false);
            assertThat(served.network.devices()).isEqualTo(2);
            assertCollected(closed);
        }
    }

    @Test
    void aKilledFabricIsForgottenAtOnce() throws Exception {
        try (Served served = served()) {
            WeakReference<EfaFabric> killed = callFromAFabricThenEnd(served, true);
            assertThat(served.network.devices()).isEqualTo(2);
            assertCollected(killed);
        }
    }

    @Test
    void aClosedRawEndpointIsForgottenAtOnce() throws Exception {
        try (Served served = served()) {
            WeakReference<RawEndpoint> closed = sendFromARawEndpointThenClose(served);
            assertThat(served.network.devices()).isEqualTo(2);
            assertCollected(closed);
        }
    }

    private static Served served() throws Exception {
        SimulatedEfa network = SimulatedEfa.start(SEED);
        return new Served(network, network.newFabric(), network.newFabric());
    }

    private static WeakReference<EfaFabric> callFromAFabricThenEnd(Served served, boolean kill) throws Exception {
        EfaFabric fabric = served.network.newFabric();
        try (RdmaRpcClient client = served.connect(fabric)) {
            BulkProgram.on(client.transport()).call(BulkProgram.NULL, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID,
                    Served.HANG_GUARD_S, TimeUnit.SECONDS);
        }
        if (kill) {
            served.network.kill(fabric);
        } else {
            fabric.close();
        }
        return new WeakReference<>(fabric);
    }

    private static WeakReference<RawEndpoint> sendFromARawEndpointThenClose(Served served) {
        RawEndpoint raw = served.network.newEndpoint(EndpointConfig.DEFAULT);
        long server = raw.call(endpoint -> endpoint.insert(EfaFabric.endpointAddressOf(
                served.serverFabric.localAddress())));
        raw.call(endpoint -> endpoint.sendTagged(server, ByteBuffer.allocate(8), 1, 0));
        raw.close();
        return new WeakReference<>(raw);
    }

    private static void assertCollected(WeakReference<?> reference) throws InterruptedException {
        for (int i = 0; i < GC_ROUNDS && reference.get() != null; i++) {
            System.gc();
            Thread.sleep(10);
        }
        assertThat(reference.get()).as("collected after %d rounds of GC", GC_ROUNDS).isNull();
    }
}
