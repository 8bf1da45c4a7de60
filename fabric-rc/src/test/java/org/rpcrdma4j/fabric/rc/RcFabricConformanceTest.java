package org.rpcrdma4j.fabric.rc;

import org.junit.jupiter.api.Nested;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.conformance.ChunkConformance;
import org.rpcrdma4j.fabric.conformance.FabricFactory;
import org.rpcrdma4j.fabric.conformance.RpcConformance;
import org.rpcrdma4j.fabric.conformance.SeamConformance;

/** The fabric conformance kit on the RC fabric over {@link SimulatedRc}. */
class RcFabricConformanceTest {

    /** RC fabrics on one simulated network, each on a host of its own; a broken connection is a fatal queue pair. */
    private static final class RcFabrics implements FabricFactory {

        private final SimulatedHosts hosts = new SimulatedHosts();

        @Override
        public Fabric server() {
            return hosts.open(RcFabric.NFS_RDMA_PORT);
        }

        @Override
        public Fabric client() {
            return hosts.open(0);
        }

        /** Closes the fabric, then checks the device was left with no id, queue pair or registration. */
        @Override
        public void close(Fabric fabric) {
            hosts.close((RcFabric) fabric);
        }

        @Override
        public void breakConnections(Fabric fabric) {
            hosts.breakConnections((RcFabric) fabric);
        }

        /** The receiver's local length error puts the queue pair in the error state. */
        @Override
        public boolean messageTooLongEndsConnection() {
            return true;
        }

        @Override
        public void close() {
            hosts.close();
        }
    }

    @Nested
    class Seam extends SeamConformance {
        @Override
        protected FabricFactory fabrics() {
            return new RcFabrics();
        }
    }

    @Nested
    class Chunks extends ChunkConformance {
        @Override
        protected FabricFactory fabrics() {
            return new RcFabrics();
        }
    }

    @Nested
    class Rpc extends RpcConformance {
        @Override
        protected FabricFactory fabrics() {
            return new RcFabrics();
        }
    }
}
