package org.rpcrdma4j.efa.device.verbs;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Nested;
import org.rpcrdma4j.efa.device.Capability;
import org.rpcrdma4j.efa.device.Device;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.conformance.DeviceAddressingConformance;
import org.rpcrdma4j.efa.device.conformance.DeviceFactory;
import org.rpcrdma4j.efa.device.conformance.DeviceLifecycleConformance;
import org.rpcrdma4j.efa.device.conformance.DeviceRdmaConformance;
import org.rpcrdma4j.efa.device.conformance.DeviceSendRecvConformance;
import org.rpcrdma4j.efa.device.conformance.ReducedCapabilities;
import org.rpcrdma4j.efa.device.udp.UdpAddresses;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * The device conformance kit on {@link VerbsDevice} over the in-JVM {@link FakeRcNetwork}, with reduced
 * capabilities. Each device is a host of its own (10.0.0.1 up); the unreachable GID is 192.0.2.1
 * (TEST-NET-1), which no NIC of the network has. No link faults: RC neither reorders nor can a
 * receiver-not-ready be injected below the device's own verdicts.
 */
class VerbsDeviceConformanceTest {

    /** Devices on a fake RC network. */
    static final class FakeDevices implements DeviceFactory, ReducedCapabilities {

        private final FakeRcNetwork network = new FakeRcNetwork();
        private final List<VerbsDevice> devices = new ArrayList<>();

        @Override
        public Device newDevice() {
            return newDevice(Set.of(Capability.values()));
        }

        @Override
        public Device newDevice(Set<Capability> capabilities) {
            try {
                final InetAddress host = InetAddress.getByAddress(new byte[] {10, 0, 0, (byte) (devices.size() + 1)});
                final VerbsDevice device = VerbsDevice.open(network.nic(host),
                        VerbsDeviceConfig.on(new InetSocketAddress(host, 0)).withCapabilities(capabilities));
                devices.add(device);
                return device;
            } catch (UnknownHostException | VerbsException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void progress() {
            devices.forEach(VerbsDevice::progress);
        }

        @Override
        public Gid unreachableGid() {
            try {
                return UdpAddresses.gidOf(InetAddress.getByName("192.0.2.1"));
            } catch (UnknownHostException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public int absentQpn(Gid gid) {
            // The fake hands out listening ports from 20000.
            return 19_999;
        }

        @Override
        public void close() {
            devices.forEach(VerbsDevice::close);
        }
    }

    @Nested
    class SendRecv extends DeviceSendRecvConformance {
        @Override
        protected DeviceFactory devices() {
            return new FakeDevices();
        }
    }

    @Nested
    class Rdma extends DeviceRdmaConformance {
        @Override
        protected DeviceFactory devices() {
            return new FakeDevices();
        }
    }

    @Nested
    class Addressing extends DeviceAddressingConformance {
        @Override
        protected DeviceFactory devices() {
            return new FakeDevices();
        }
    }

    @Nested
    class Lifecycle extends DeviceLifecycleConformance {
        @Override
        protected DeviceFactory devices() {
            return new FakeDevices();
        }
    }
}
