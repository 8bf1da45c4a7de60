package org.rpcrdma4j.fabric.efa;

import org.junit.jupiter.api.Nested;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.conformance.ChunkConformance;
import org.rpcrdma4j.fabric.conformance.FabricFactory;
import org.rpcrdma4j.fabric.conformance.RpcConformance;
import org.rpcrdma4j.fabric.conformance.SeamConformance;

/** The fabric conformance kit on the simulated EFA fabric. */
class SimulatedEfaConformanceTest {

    private static final long SEED = Long.getLong("rpcrdma4j.seed", 8166);

    /** Fabrics of one simulated network; a broken connection is a restarted process. */
    private static final class SimulatedFabrics extends EfaFabrics {

        private final SimulatedEfa network = SimulatedEfa.start(SEED);

        @Override
        EfaFabric open() {
            return network.newFabric();
        }

        @Override
        public void breakConnections(Fabric fabric) {
            network.restart((EfaFabric) fabric);
        }

        @Override
        public void close() {
            super.close();
            network.close();
        }
    }

    @Nested
    class Seam extends SeamConformance {
        @Override
        protected FabricFactory fabrics() {
            return new SimulatedFabrics();
        }
    }

    @Nested
    class Chunks extends ChunkConformance {
        @Override
        protected FabricFactory fabrics() {
            return new SimulatedFabrics();
        }
    }

    @Nested
    class Rpc extends RpcConformance {
        @Override
        protected FabricFactory fabrics() {
            return new SimulatedFabrics();
        }
    }
}
