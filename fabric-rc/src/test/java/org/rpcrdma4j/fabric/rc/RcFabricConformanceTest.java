package org.rpcrdma4j.fabric.rc;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.conformance.ChunkConformance;
import org.rpcrdma4j.fabric.conformance.FabricFactory;
import org.rpcrdma4j.fabric.conformance.RpcConformance;
import org.rpcrdma4j.fabric.conformance.SeamConformance;

/** The fabric conformance kit on the RC fabric over {@link SimulatedRc}. */
class RcFabricConformanceTest {

    /** RC fabrics on devices of one simulated network, each on a host of its own; a broken connection is a fatal queue pair. */
    private static final class RcFabrics implements FabricFactory {

        private final SimulatedRc network = new SimulatedRc();
        private final Map<RcFabric, SimulatedRc.Device> devices = new LinkedHashMap<>();

        @Override
        public Fabric server() {
            return open(RcFabric.NFS_RDMA_PORT);
        }

        @Override
        public Fabric client() {
            return open(0);
        }

        private RcFabric open(int port) {
            InetAddress ip;
            try {
                ip = InetAddress.getByAddress(new byte[] {10, 0, 2, (byte) (devices.size() + 1)});
            } catch (UnknownHostException e) {
                throw new AssertionError(e);
            }
            SimulatedRc.Device device = network.device(ip);
            RcFabric fabric = new RcFabric(device, new InetSocketAddress(ip, port), RcFabric.Config.DEFAULT);
            devices.put(fabric, device);
            return fabric;
        }

        /** Closes the fabric, then checks the device was left with no id, queue pair or registration. */
        @Override
        public void close(Fabric fabric) {
            ((RcFabric) fabric).close();
            assertThat(devices.get(fabric).closed()).as("the device released cleanly").isTrue();
        }

        @Override
        public void breakConnections(Fabric fabric) {
            SimulatedRc.Device device = devices.get(fabric);
            device.connectedQueuePairs().forEach(device::fatal);
        }

        /** The receiver's local length error puts the queue pair in the error state. */
        @Override
        public boolean messageTooLongEndsConnection() {
            return true;
        }

        @Override
        public void close() {
            devices.keySet().forEach(this::close);
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
