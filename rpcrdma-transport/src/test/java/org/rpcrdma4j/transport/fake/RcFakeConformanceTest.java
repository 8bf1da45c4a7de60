package org.rpcrdma4j.transport.fake;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.conformance.ChunkConformance;
import org.rpcrdma4j.fabric.conformance.FabricFactory;
import org.rpcrdma4j.fabric.conformance.RpcConformance;
import org.rpcrdma4j.fabric.conformance.SeamConformance;

/** The fabric conformance kit on the transport's stand-in for verbs RC, {@link RcFakeNetwork}. */
class RcFakeConformanceTest {

    private static final int NFS_RDMA_PORT = 20049;

    /** Fabrics of one fake network. */
    private static final class FakeFabrics implements FabricFactory {

        private final RcFakeNetwork network = new RcFakeNetwork();
        private final List<Fabric> fabrics = new ArrayList<>();

        @Override
        public Fabric server() {
            return add(network.fabric(NFS_RDMA_PORT));
        }

        @Override
        public Fabric client() {
            return add(network.fabric(0));
        }

        private Fabric add(Fabric fabric) {
            fabrics.add(fabric);
            return fabric;
        }

        @Override
        public void close(Fabric fabric) {
            fabric.close();
        }

        @Override
        public void breakConnections(Fabric fabric) {
            network.breakConnections(fabric);
        }

        /** A local length error puts the queue pair in the error state, as on verbs RC. */
        @Override
        public boolean messageTooLongEndsConnection() {
            return true;
        }

        @Override
        public void close() {
            fabrics.forEach(Fabric::close);
            network.close();
        }
    }

    @Nested
    class Seam extends SeamConformance {
        @Override
        protected FabricFactory fabrics() {
            return new FakeFabrics();
        }
    }

    @Nested
    class Chunks extends ChunkConformance {
        @Override
        protected FabricFactory fabrics() {
            return new FakeFabrics();
        }
    }

    @Nested
    class Rpc extends RpcConformance {
        @Override
        protected FabricFactory fabrics() {
            return new FakeFabrics();
        }
    }
}
