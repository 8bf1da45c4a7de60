package org.rpcrdma4j.transport.oncrpc;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.rpcrdma4j.efa.EfaEndpoint;
import org.rpcrdma4j.efa.EndpointConfig;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.sim.SimDevice;
import org.rpcrdma4j.efa.device.sim.SimFabric;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.efa.EfaFabric;
import org.rpcrdma4j.transport.efa.EfaProgressLoop;

/**
 * A server, a client and a raw endpoint on one seeded simulated fabric, driven by one progress loop whose
 * virtual clock advances {@link #STEP_NS} per cycle and moves the simulation in step.
 */
final class SimHarness implements AutoCloseable {

    static final long STEP_NS = 1_000;

    final SimFabric sim;
    final EfaProgressLoop loop;
    final EfaFabric serverFabric;
    final EfaFabric clientFabric;
    /** A third endpoint, for tests that speak the wire protocol by hand. */
    final EfaFabric rawFabric;
    /** The raw endpoint's device, to make its process vanish ({@link SimFabric#restart}) on the loop thread. */
    final SimDevice rawDevice;
    final ExecutorService workers = Executors.newFixedThreadPool(4);
    private long now;

    SimHarness(long seed) {
        sim = new SimFabric(seed);
        EfaEndpoint server = new EfaEndpoint(sim.createDevice(new Gid(0xfe80_0000_0000_0000L, 1), 7),
                EndpointConfig.DEFAULT.withRandomSeed(seed));
        EfaEndpoint client = new EfaEndpoint(sim.createDevice(new Gid(0xfe80_0000_0000_0000L, 2), 9),
                EndpointConfig.DEFAULT.withRandomSeed(~seed));
        rawDevice = sim.createDevice(new Gid(0xfe80_0000_0000_0000L, 3), 11);
        EfaEndpoint raw = new EfaEndpoint(rawDevice,
                EndpointConfig.DEFAULT.withRandomSeed(seed + 1));
        // The clock is read only on the loop's thread.
        loop = EfaProgressLoop.start("sim-progress", () -> now += STEP_NS, sim::progress);
        serverFabric = loop.attach(server);
        clientFabric = loop.attach(client);
        rawFabric = loop.attach(raw);
    }

    RdmaRpcClient connect(TransportConfig config) throws IOException {
        return RdmaRpcClient.connect(clientFabric, serverFabric.localAddress(), config, Duration.ofSeconds(30));
    }

    /**
     * Polls a condition the transport reaches on its own threads, failing the test after a hang guard
     * of 30 s; no assertion depends on how long it takes.
     */
    static void waitFor(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not reached (hang guard)");
            }
            Thread.sleep(1);
        }
    }

    @Override
    public void close() {
        loop.close();
        workers.shutdownNow();
    }
}
