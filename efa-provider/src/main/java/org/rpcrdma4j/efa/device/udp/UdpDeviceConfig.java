package org.rpcrdma4j.efa.device.udp;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.rpcrdma4j.efa.device.Capability;

/**
 * How a {@link UdpDevice} is built. Start from {@link #DEFAULT} or {@link #builder()}, change what
 * differs with the builder's {@code withX()} methods; {@link Builder#build()} checks the
 * combination.
 *
 * @param bindAddress the local IP address and UDP port; the address must be concrete (it becomes the
 *     GID), port 0 picks a free one (it becomes the QPN). Default {@code 127.0.0.1:0}
 * @param mtu the largest packet a send may carry; 0 (the default) fits one datagram, with this
 *     device's 88 bytes of headers, into the MTU of the interface the address is on, without IP
 *     fragmentation, at most {@link #DEFAULT_MTU_LIMIT} (loopback: 16 KiB; Ethernet at 1500: 1,384).
 *     Peers must use the same MTU, as EFA devices do: the EFA endpoint posts receive buffers of its
 *     own MTU, and a packet longer than the buffer fails with {@code REMOTE_ERROR_BAD_LENGTH}
 * @param window how many DATA frames may be unacknowledged towards one peer, at most
 *     {@link #MAX_WINDOW}; default 256
 * @param sendQueueDepth the send queue depth the device reports; default 256
 * @param recvQueueDepth the receive queue depth the device reports; default 256
 * @param initialRtoNs the retransmission timeout before a round trip was measured (RFC 6298 §2.1
 *     says 1 s for the Internet; default 50 ms)
 * @param minRtoNs the least retransmission timeout (RFC 6298 §2.4 says 1 s; default 5 ms, for
 *     data-centre and loopback paths)
 * @param maxRtoNs the greatest retransmission timeout, where backing off stops; default 2 s
 * @param maxRetransmissions how often the retransmission timer sends one DATA frame again before its
 *     peer is declared unreachable and every operation with it completes with an error; default 12
 *     (about 9 s with the default timeouts)
 * @param tickNs how often the I/O thread looks at its timers; default 1 ms, also the clock
 *     granularity G of RFC 6298
 * @param maxPeers how many peers (IP address and port) the device keeps state for; datagrams from
 *     more are dropped and counted; default 4096
 * @param maxRegistrations how many memory registrations may exist at once; default unlimited
 * @param socketBufferBytes SO_SNDBUF and SO_RCVBUF (the kernel caps them at net.core.wmem_max and
 *     rmem_max); default 4 MiB
 * @param transport which Netty transport to use; default {@link Transport#AUTO}
 * @param capabilities what the device announces and serves; default RDMA read and write
 * @param faults the fault injector's faults on everything sent; default {@link UdpFaults#NONE}
 * @param faultSeed the seed of the fault injector's random source
 */
public record UdpDeviceConfig(InetSocketAddress bindAddress, int mtu, int window, int sendQueueDepth,
                              int recvQueueDepth, long initialRtoNs, long minRtoNs, long maxRtoNs,
                              int maxRetransmissions, long tickNs, int maxPeers, int maxRegistrations,
                              int socketBufferBytes, Transport transport, Set<Capability> capabilities,
                              UdpFaults faults, long faultSeed) {

    /** The largest send window the receive side tracks; a sender may use less. */
    public static final int MAX_WINDOW = 1024;

    /** The largest UDP payload over IPv4. */
    public static final int MAX_DATAGRAM = 65_507;

    /** The largest MTU at all: one datagram of {@link #MAX_DATAGRAM} bytes with this device's headers. */
    public static final int MAX_MTU = MAX_DATAGRAM - SrdFrame.DATA_HEADER_LENGTH;

    /**
     * The largest MTU chosen by default, however large the interface's: the EFA endpoint owns a
     * thousand send buffers of the MTU, and a smaller datagram loses less when the socket's buffer
     * overflows.
     */
    public static final int DEFAULT_MTU_LIMIT = 16 * 1024;

    /** The largest RDMA read or write: 1 GiB, as on EFA (EFA RDM protocol v4 §1.1). */
    public static final long MAX_RDMA_SIZE = 1L << 30;

    /** Which Netty transport carries the datagrams. */
    public enum Transport {
        /** Native epoll where it loads (Linux), else NIO. */
        AUTO,
        /** Native epoll; the device fails to open where it does not load. */
        EPOLL,
        /** The JDK's NIO datagram channel. */
        NIO
    }

    /** The defaults, on loopback. */
    public static final UdpDeviceConfig DEFAULT = new UdpDeviceConfig(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0, 256, 256, 256,
            TimeUnit.MILLISECONDS.toNanos(50), TimeUnit.MILLISECONDS.toNanos(5), TimeUnit.SECONDS.toNanos(2), 12,
            TimeUnit.MILLISECONDS.toNanos(1), 4096, Integer.MAX_VALUE, 4 << 20, Transport.AUTO,
            EnumSet.allOf(Capability.class), UdpFaults.NONE, 0x5eed);

    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException on a wildcard or missing address, an MTU outside
     *     0..{@link #MAX_MTU}, a window outside 1..{@link #MAX_WINDOW}, a depth, count or time that is
     *     not positive, or RTO bounds out of order
     */
    public UdpDeviceConfig {
        Objects.requireNonNull(bindAddress, "bindAddress");
        if (bindAddress.isUnresolved() || bindAddress.getAddress().isAnyLocalAddress()) {
            throw new IllegalArgumentException("bind to a concrete IP address (it is the GID), not " + bindAddress);
        }
        if (mtu < 0 || mtu > MAX_MTU) {
            throw new IllegalArgumentException("MTU " + mtu + " is outside 0.." + MAX_MTU);
        }
        if (window < 1 || window > MAX_WINDOW) {
            throw new IllegalArgumentException("window " + window + " is outside 1.." + MAX_WINDOW);
        }
        if (sendQueueDepth < 1 || recvQueueDepth < 1 || maxPeers < 1 || maxRegistrations < 0
                || maxRetransmissions < 1 || socketBufferBytes < 1 || tickNs < 1) {
            throw new IllegalArgumentException("queue depths, peers, retransmissions, buffer and tick must be positive");
        }
        if (minRtoNs < 1 || minRtoNs > initialRtoNs || initialRtoNs > maxRtoNs) {
            throw new IllegalArgumentException("need 0 < min RTO <= initial RTO <= max RTO, not " + minRtoNs + ", "
                    + initialRtoNs + ", " + maxRtoNs);
        }
        Objects.requireNonNull(transport, "transport");
        capabilities = Set.copyOf(Objects.requireNonNull(capabilities, "capabilities"));
        Objects.requireNonNull(faults, "faults");
    }

    /** @return a builder starting from {@link #DEFAULT} */
    public static Builder builder() {
        return DEFAULT.toBuilder();
    }

    /** @return a builder starting from this configuration */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /**
     * The MTU a device with this configuration reports: {@link #mtu()} if set, else what fits the
     * interface the bind address is on.
     *
     * @return the MTU in bytes
     */
    public int resolvedMtu() {
        if (mtu > 0) {
            return mtu;
        }
        // Loopback addresses other than the one on the interface (127.0.0.2 on Linux) have no
        // interface of their own; they are on loopback all the same.
        int interfaceMtu = bindAddress.getAddress().isLoopbackAddress() ? 65_536 : 1500;
        try {
            final NetworkInterface nic = NetworkInterface.getByInetAddress(bindAddress.getAddress());
            if (nic != null && nic.getMTU() > 0) {
                interfaceMtu = nic.getMTU();
            }
        } catch (SocketException e) {
            // keep the Ethernet default
        }
        final int ipAndUdp = (bindAddress.getAddress() instanceof Inet4Address ? 20 : 40) + 8;
        final int datagram = Math.min(MAX_DATAGRAM, interfaceMtu - ipAndUdp);
        return Math.max(1, Math.min(DEFAULT_MTU_LIMIT, datagram - SrdFrame.DATA_HEADER_LENGTH));
    }

    /** Builds a {@link UdpDeviceConfig}; every method returns the builder. */
    public static final class Builder {
        private InetSocketAddress bindAddress;
        private int mtu;
        private int window;
        private int sendQueueDepth;
        private int recvQueueDepth;
        private long initialRtoNs;
        private long minRtoNs;
        private long maxRtoNs;
        private int maxRetransmissions;
        private long tickNs;
        private int maxPeers;
        private int maxRegistrations;
        private int socketBufferBytes;
        private Transport transport;
        private Set<Capability> capabilities;
        private UdpFaults faults;
        private long faultSeed;

        private Builder(UdpDeviceConfig c) {
            bindAddress = c.bindAddress;
            mtu = c.mtu;
            window = c.window;
            sendQueueDepth = c.sendQueueDepth;
            recvQueueDepth = c.recvQueueDepth;
            initialRtoNs = c.initialRtoNs;
            minRtoNs = c.minRtoNs;
            maxRtoNs = c.maxRtoNs;
            maxRetransmissions = c.maxRetransmissions;
            tickNs = c.tickNs;
            maxPeers = c.maxPeers;
            maxRegistrations = c.maxRegistrations;
            socketBufferBytes = c.socketBufferBytes;
            transport = c.transport;
            capabilities = c.capabilities;
            faults = c.faults;
            faultSeed = c.faultSeed;
        }

        /** @param value the local address and port @return this builder */
        public Builder withBindAddress(InetSocketAddress value) {
            bindAddress = value;
            return this;
        }

        /** @param value the MTU, 0 for the interface's @return this builder */
        public Builder withMtu(int value) {
            mtu = value;
            return this;
        }

        /** @param value the send window in frames @return this builder */
        public Builder withWindow(int value) {
            window = value;
            return this;
        }

        /** @param value the send queue depth @return this builder */
        public Builder withSendQueueDepth(int value) {
            sendQueueDepth = value;
            return this;
        }

        /** @param value the receive queue depth @return this builder */
        public Builder withRecvQueueDepth(int value) {
            recvQueueDepth = value;
            return this;
        }

        /**
         * @param initialNs the RTO before any measurement
         * @param minNs the least RTO
         * @param maxNs the greatest RTO
         * @return this builder
         */
        public Builder withRto(long initialNs, long minNs, long maxNs) {
            initialRtoNs = initialNs;
            minRtoNs = minNs;
            maxRtoNs = maxNs;
            return this;
        }

        /** @param value timeouts that send one frame again before its peer is unreachable @return this builder */
        public Builder withMaxRetransmissions(int value) {
            maxRetransmissions = value;
            return this;
        }

        /** @param value the timer period @return this builder */
        public Builder withTickNs(long value) {
            tickNs = value;
            return this;
        }

        /** @param value how many peers may have state @return this builder */
        public Builder withMaxPeers(int value) {
            maxPeers = value;
            return this;
        }

        /** @param value how many registrations may exist @return this builder */
        public Builder withMaxRegistrations(int value) {
            maxRegistrations = value;
            return this;
        }

        /** @param value SO_SNDBUF and SO_RCVBUF @return this builder */
        public Builder withSocketBufferBytes(int value) {
            socketBufferBytes = value;
            return this;
        }

        /** @param value the Netty transport @return this builder */
        public Builder withTransport(Transport value) {
            transport = value;
            return this;
        }

        /** @param value what the device announces and serves @return this builder */
        public Builder withCapabilities(Set<Capability> value) {
            capabilities = value;
            return this;
        }

        /** @param value the faults on everything sent @return this builder */
        public Builder withFaults(UdpFaults value) {
            faults = value;
            return this;
        }

        /** @param value the fault injector's seed @return this builder */
        public Builder withFaultSeed(long value) {
            faultSeed = value;
            return this;
        }

        /**
         * @return the configuration
         * @throws IllegalArgumentException if the values do not go together
         */
        public UdpDeviceConfig build() {
            return new UdpDeviceConfig(bindAddress, mtu, window, sendQueueDepth, recvQueueDepth, initialRtoNs,
                    minRtoNs, maxRtoNs, maxRetransmissions, tickNs, maxPeers, maxRegistrations, socketBufferBytes,
                    transport, capabilities, faults, faultSeed);
        }
    }
}
