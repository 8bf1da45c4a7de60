package org.rpcrdma4j.fabric.efa;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.junit.jupiter.api.Nested;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricOptions;
import org.rpcrdma4j.fabric.conformance.ChunkConformance;
import org.rpcrdma4j.fabric.conformance.FabricFactory;
import org.rpcrdma4j.fabric.conformance.RpcConformance;
import org.rpcrdma4j.fabric.conformance.SeamConformance;

/**
 * The fabric conformance kit on the EFA fabric over the UDP device: each fabric a device of its own on
 * a loopback port, as {@code --fabric udp} opens them, the datagrams crossing the kernel's UDP.
 */
class UdpFabricConformanceTest {

    /** Fabrics on loopback ports; a broken connection is a restarted process on the same port. */
    private static final class UdpFabrics extends EfaFabrics {

        private final UdpFabricProvider provider = new UdpFabricProvider();

        @Override
        EfaFabric open() {
            try {
                return (EfaFabric) provider.open(FabricOptions.DEFAULT.listening("127.0.0.1:0"));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void breakConnections(Fabric fabric) {
            UdpFabricProvider.restart((EfaFabric) fabric);
        }
    }

    @Nested
    class Seam extends SeamConformance {
        @Override
        protected FabricFactory fabrics() {
            return new UdpFabrics();
        }
    }

    @Nested
    class Chunks extends ChunkConformance {
        @Override
        protected FabricFactory fabrics() {
            return new UdpFabrics();
        }
    }

    @Nested
    class Rpc extends RpcConformance {
        @Override
        protected FabricFactory fabrics() {
            return new UdpFabrics();
        }
    }
}
