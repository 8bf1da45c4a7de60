package org.rpcrdma4j.fabric.efa;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
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
    private static final class SimulatedFabrics implements FabricFactory {

        private final SimulatedEfa network = SimulatedEfa.start(SEED);
        private final List<EfaFabric> fabrics = new ArrayList<>();

        @Override
        public Fabric server() {
            EfaFabric fabric = network.newFabric();
            fabrics.add(fabric);
            return fabric;
        }

        @Override
        public Fabric client() {
            return server();
        }

        /** Closes the fabric, then checks its progress never failed. */
        @Override
        public void close(Fabric fabric) {
            EfaFabric efa = (EfaFabric) fabric;
            efa.close();
            assertThat(efa.statistics().progressLoopFailures()).isZero();
        }

        @Override
        public void breakConnections(Fabric fabric) {
            network.restart((EfaFabric) fabric);
        }

        /** The endpoint completes a truncated message with an error and goes on. */
        @Override
        public boolean messageTooLongEndsConnection() {
            return false;
        }

        @Override
        public void close() {
            fabrics.forEach(EfaFabric::close);
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
