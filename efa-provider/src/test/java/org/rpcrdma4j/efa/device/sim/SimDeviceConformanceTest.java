package org.rpcrdma4j.efa.device.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.rpcrdma4j.efa.SeedWatcher;
import org.rpcrdma4j.efa.device.Capability;
import org.rpcrdma4j.efa.device.Device;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.conformance.DeviceAddressingConformance;
import org.rpcrdma4j.efa.device.conformance.DeviceFactory;
import org.rpcrdma4j.efa.device.conformance.DeviceLifecycleConformance;
import org.rpcrdma4j.efa.device.conformance.DeviceRdmaConformance;
import org.rpcrdma4j.efa.device.conformance.DeviceSendRecvConformance;
import org.rpcrdma4j.efa.device.conformance.LinkFaults;
import org.rpcrdma4j.efa.device.conformance.ReducedCapabilities;

/** The device conformance kit on the simulated device, with its link faults and reduced capabilities. */
class SimDeviceConformanceTest {

    /** Virtual time each {@link DeviceFactory#progress()} moves the fabric on. */
    private static final long STEP_NS = 1_000;

    /** One {@link SimFabric}; every device on a GID of its own, so the next QPN up is absent. */
    private static final class SimDevices implements DeviceFactory, LinkFaults, ReducedCapabilities {

        private final SimFabric fabric;
        private final List<SimDevice> devices = new ArrayList<>();

        SimDevices(long seed) {
            fabric = new SimFabric(seed);
        }

        @Override
        public Device newDevice() {
            return newDevice(SimDeviceConfig.DEFAULT);
        }

        @Override
        public Device newDevice(Set<Capability> capabilities) {
            return newDevice(SimDeviceConfig.DEFAULT.withCapabilities(capabilities));
        }

        private SimDevice newDevice(SimDeviceConfig config) {
            final int n = devices.size() + 1;
            final SimDevice device = fabric.createDevice(Sim.gid(n), 100 + n, config);
            devices.add(device);
            return device;
        }

        @Override
        public void progress() {
            fabric.progress(fabric.nowNs() + STEP_NS);
        }

        @Override
        public Gid unreachableGid() {
            return Sim.gid(0xDEAD);
        }

        @Override
        public int absentQpn(Gid gid) {
            for (SimDevice device : devices) {
                if (device.address().gid().equals(gid)) {
                    return device.address().qpn() + 1;
                }
            }
            throw new IllegalArgumentException("no device at " + gid);
        }

        @Override
        public void reorder(Device from, Device to) {
            // Delays spread over many progress steps reorder across them, the reorder window within one.
            fabric.setLinkFaults((SimDevice) from, (SimDevice) to,
                    FaultPlan.NONE.withDelay(0, 20 * STEP_NS).withReorder(0.5, 8));
        }

        @Override
        public void receiverNotReady(Device from, Device to) {
            fabric.setLinkFaults((SimDevice) from, (SimDevice) to, FaultPlan.NONE.withRnr(1.0));
        }

        @Override
        public void clear(Device from, Device to) {
            fabric.clearLinkFaults((SimDevice) from, (SimDevice) to);
        }

        @Override
        public void close() {
            devices.forEach(SimDevice::close);
        }
    }

    @Nested
    class SendRecv extends DeviceSendRecvConformance {
        @RegisterExtension
        final SeedWatcher seed = new SeedWatcher();

        @Override
        protected DeviceFactory devices() {
            return new SimDevices(seed.seed());
        }
    }

    @Nested
    class Rdma extends DeviceRdmaConformance {
        @RegisterExtension
        final SeedWatcher seed = new SeedWatcher();

        @Override
        protected DeviceFactory devices() {
            return new SimDevices(seed.seed());
        }
    }

    @Nested
    class Addressing extends DeviceAddressingConformance {
        @RegisterExtension
        final SeedWatcher seed = new SeedWatcher();

        @Override
        protected DeviceFactory devices() {
            return new SimDevices(seed.seed());
        }
    }

    @Nested
    class Lifecycle extends DeviceLifecycleConformance {
        @RegisterExtension
        final SeedWatcher seed = new SeedWatcher();

        @Override
        protected DeviceFactory devices() {
            return new SimDevices(seed.seed());
        }
    }
}
