package org.rpcrdma4j.testbed.sim;

import org.rpcrdma4j.efa.EfaEndpoint;
import org.rpcrdma4j.efa.EndpointConfig;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.sim.SimFabric;
import org.rpcrdma4j.transport.efa.EfaFabric;
import org.rpcrdma4j.transport.efa.EfaProgressLoop;

/**
 * A server and a client EFA endpoint on one seeded simulated fabric, as rpcrdma4j fabrics, driven by
 * one progress loop whose virtual clock advances {@link #STEP_NS} per cycle and moves the simulation
 * in step. The loop's thread is the only one that touches the simulation.
 */
public final class SimulatedNetwork implements AutoCloseable {

    /** Virtual time per progress cycle. */
    public static final long STEP_NS = 1_000;

    private final EfaProgressLoop loop;
    private final EfaFabric server;
    private final EfaFabric client;
    private long now;

    /**
     * Creates both endpoints and starts the loop.
     *
     * @param seed the seed of the fabric and the endpoints
     */
    public SimulatedNetwork(long seed) {
        SimFabric sim = new SimFabric(seed);
        EfaEndpoint serverEndpoint = new EfaEndpoint(sim.createDevice(new Gid(0xfe80_0000_0000_0000L, 1), 7),
                EndpointConfig.DEFAULT.withRandomSeed(seed));
        EfaEndpoint clientEndpoint = new EfaEndpoint(sim.createDevice(new Gid(0xfe80_0000_0000_0000L, 2), 9),
                EndpointConfig.DEFAULT.withRandomSeed(~seed));
        loop = EfaProgressLoop.start("sim-progress", () -> now += STEP_NS, sim::progress);
        server = loop.attach(serverEndpoint);
        client = loop.attach(clientEndpoint);
    }

    /** @return the server's fabric */
    public EfaFabric server() {
        return server;
    }

    /** @return the client's fabric */
    public EfaFabric client() {
        return client;
    }

    /** Stops the progress loop. */
    @Override
    public void close() {
        loop.close();
    }
}
