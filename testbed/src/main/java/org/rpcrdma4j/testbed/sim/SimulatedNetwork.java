package org.rpcrdma4j.testbed.sim;

import org.rpcrdma4j.fabric.efa.EfaFabric;
import org.rpcrdma4j.fabric.efa.SimulatedEfa;

/** A server and a client fabric on one seeded {@link SimulatedEfa} network. */
public final class SimulatedNetwork implements AutoCloseable {

    private final SimulatedEfa network;
    private final EfaFabric server;
    private final EfaFabric client;

    /**
     * Creates both fabrics and starts the network.
     *
     * @param seed the seed of the simulation and the endpoints
     */
    public SimulatedNetwork(long seed) {
        network = SimulatedEfa.start(seed);
        server = network.newFabric();
        client = network.newFabric();
    }

    /** @return the server's fabric */
    public EfaFabric server() {
        return server;
    }

    /** @return the client's fabric */
    public EfaFabric client() {
        return client;
    }

    /** Closes both fabrics and stops the network. */
    @Override
    public void close() {
        client.close();
        server.close();
        network.close();
    }
}
