package org.rpcrdma4j.efa.device.verbs;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
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
import org.rpcrdma4j.verbs.VerbsException;

/**
 * The device conformance kit on {@link EfaSrdDevice} over the in-JVM {@link FakeSrdNetwork}, with link
 * faults (reordering: the fake's seeded shuffle; receiver-not-ready) and reduced capabilities (a NIC
 * without RDMA read or write, which also refuses them as a target). Each device is a NIC on a GID of its
 * own; the fake's QPNs count up from 1, so 0xFFFE is absent everywhere.
 */
class EfaSrdDeviceConformanceTest {

    /** Devices on one fake SRD network. */
    static final class FakeDevices implements DeviceFactory, ReducedCapabilities, LinkFaults {

        private final FakeSrdNetwork network;
        private final Map<Device, FakeSrdNetwork.FakeNic> nics = new IdentityHashMap<>();
        private final List<EfaSrdDevice> devices = new ArrayList<>();

        FakeDevices(long seed) {
            network = new FakeSrdNetwork(seed);
        }

        @Override
        public Device newDevice() {
            return newDevice(Set.of(Capability.values()));
        }

        @Override
        public Device newDevice(Set<Capability> capabilities) {
            final FakeSrdNetwork.Caps full = FakeSrdNetwork.Caps.full();
            final FakeSrdNetwork.FakeNic nic = network.nic(new Gid(0xfe80_0000_0000_0000L, devices.size() + 1),
                    new FakeSrdNetwork.Caps(full.mtu(), full.sendDepth(), full.recvDepth(), full.maxRdmaSize(),
                            capabilities.contains(Capability.RDMA_READ), capabilities.contains(Capability.RDMA_WRITE),
                            true));
            try {
                final EfaSrdDevice device = EfaSrdDevice.open(nic, EfaSrdDeviceConfig.on("fake"));
                devices.add(device);
                nics.put(device, nic);
                return device;
            } catch (VerbsException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void progress() {
            network.progress();
        }

        @Override
        public Gid unreachableGid() {
            return new Gid(0xfe80_0000_0000_0000L, 0xDEAD);
        }

        @Override
        public int absentQpn(Gid gid) {
            return 0xFFFE;
        }

        @Override
        public void reorder(Device from, Device to) {
            network.shuffle();
        }

        @Override
        public void receiverNotReady(Device from, Device to) {
            network.receiverNotReady(nics.get(from), nics.get(to));
        }

        @Override
        public void clear(Device from, Device to) {
            network.ready(nics.get(from), nics.get(to));
        }

        @Override
        public void close() {
            devices.forEach(EfaSrdDevice::close);
        }
    }

    @Nested
    class SendRecv extends DeviceSendRecvConformance {
        @RegisterExtension
        final SeedWatcher seed = new SeedWatcher();

        @Override
        protected DeviceFactory devices() {
            return new FakeDevices(seed.seed());
        }
    }

    @Nested
    class Rdma extends DeviceRdmaConformance {
        @RegisterExtension
        final SeedWatcher seed = new SeedWatcher();

        @Override
        protected DeviceFactory devices() {
            return new FakeDevices(seed.seed());
        }
    }

    @Nested
    class Addressing extends DeviceAddressingConformance {
        @RegisterExtension
        final SeedWatcher seed = new SeedWatcher();

        @Override
        protected DeviceFactory devices() {
            return new FakeDevices(seed.seed());
        }
    }

    @Nested
    class Lifecycle extends DeviceLifecycleConformance {
        @RegisterExtension
        final SeedWatcher seed = new SeedWatcher();

        @Override
        protected DeviceFactory devices() {
            return new FakeDevices(seed.seed());
        }
    }
}
