package org.rpcrdma4j.efa.device.udp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Nested;
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

/**
 * The device conformance kit on {@link UdpDevice} over loopback, with link faults (the device's
 * fault injector reorders; its queue pair refuses a peer's sends with receiver-not-ready) and
 * reduced capabilities. Devices are bound to 127.0.0.1, 127.0.0.2, ... (one GID each, as the kit
 * expects), on ports the kernel picks; the unreachable
 * GID is 192.0.2.1 (TEST-NET-1, RFC 5737), which a socket on loopback cannot reach.
 */
class UdpDeviceConformanceTest {

    /**
     * Shorter timeouts than the defaults, so that the checks of unreachable destinations end in about
     * a second, yet long enough that a busy machine's pauses do not make a live peer unreachable.
     */
    static final UdpDeviceConfig CONFIG = UdpDeviceConfig.builder()
            .withRto(TimeUnit.MILLISECONDS.toNanos(20), TimeUnit.MILLISECONDS.toNanos(5),
                    TimeUnit.MILLISECONDS.toNanos(250))
            .withMaxRetransmissions(10)
            .build();

    /** Devices on loopback. */
    static final class UdpDevices implements DeviceFactory, LinkFaults, ReducedCapabilities {

        private final List<UdpDevice> devices = new ArrayList<>();

        @Override
        public Device newDevice() {
            return open(CONFIG);
        }

        @Override
        public Device newDevice(Set<Capability> capabilities) {
            return open(CONFIG.toBuilder().withCapabilities(capabilities).build());
        }

        private UdpDevice open(UdpDeviceConfig config) {
            try {
                // A loopback address of its own for each device (Linux routes all of 127/8 to lo): the
                // kit expects one device per GID, as it makes a handle for each.
                final InetAddress host = InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) (devices.size() + 1)});
                final UdpDevice device = UdpDevice.open(config.toBuilder()
                        .withBindAddress(new InetSocketAddress(host, 0)).build());
                devices.add(device);
                return device;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void progress() {
            // The devices progress on their own I/O threads; leave them the CPU for a moment.
            LockSupport.parkNanos(50_000);
        }

        @Override
        public Gid unreachableGid() {
            try {
                return UdpAddresses.gidOf(InetAddress.getByName("192.0.2.1"));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public int absentQpn(Gid gid) {
            // A port the kernel just handed out and took back: nothing listens on it.
            try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(UdpAddresses.inetAddressOf(gid), 0))) {
                return socket.getLocalPort();
            } catch (SocketException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void reorder(Device from, Device to) {
            ((UdpDevice) from).setLinkFaults(((UdpDevice) to).socketAddress(), UdpFaults.NONE.withReorder(0.5, 8));
        }

        @Override
        public void receiverNotReady(Device from, Device to) {
            ((UdpDevice) to).refuseSendsFrom(((UdpDevice) from).socketAddress(), true);
        }

        @Override
        public void clear(Device from, Device to) {
            ((UdpDevice) from).setLinkFaults(((UdpDevice) to).socketAddress(), null);
            ((UdpDevice) to).refuseSendsFrom(((UdpDevice) from).socketAddress(), false);
        }

        @Override
        public void close() {
            devices.forEach(UdpDevice::close);
        }
    }

    @Nested
    class SendRecv extends DeviceSendRecvConformance {
        @Override
        protected DeviceFactory devices() {
            return new UdpDevices();
        }
    }

    @Nested
    class Rdma extends DeviceRdmaConformance {
        @Override
        protected DeviceFactory devices() {
            return new UdpDevices();
        }
    }

    @Nested
    class Addressing extends DeviceAddressingConformance {
        @Override
        protected DeviceFactory devices() {
            return new UdpDevices();
        }
    }

    @Nested
    class Lifecycle extends DeviceLifecycleConformance {
        @Override
        protected DeviceFactory devices() {
            return new UdpDevices();
        }
    }
}
