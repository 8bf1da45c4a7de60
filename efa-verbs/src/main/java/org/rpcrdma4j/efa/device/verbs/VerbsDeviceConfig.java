package org.rpcrdma4j.efa.device.verbs;

import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import org.rpcrdma4j.efa.device.Capability;

/**
 * How a {@link VerbsDevice} is opened and what it holds at most. Everything it allocates is bounded
 * here: the SPI's queues, the receives of the shared receive queue, the peers it keeps connections
 * with, and registrations.
 *
 * @param bindAddress     the IP address of the RDMA device to use, and the port to listen on (0: one
 *                        the kernel picks); the port is the device's QPN
 * @param mtu             the largest packet, in bytes (the SPI's MTU; each message carries a 16-byte
 *                        header beyond it)
 * @param sendQueueDepth  the SPI's send queue: sends, RDMA reads and writes until polled
 * @param recvQueueDepth  the SPI's receive queue: buffers posted until polled
 * @param sharedReceives  the device's own receive buffers of MTU size on the shared receive queue,
 *                        which every peer's messages land in first
 * @param maxPeers        the most peers with a connection at once; a new peer beyond them is refused
 *                        ({@code LOCAL_ERROR_UNREACH_REMOTE} to a send, a reject to a request)
 * @param maxRegistrations the most memory registrations at once
 * @param maxRdmaSize     the largest RDMA read or write, in bytes
 * @param maxCopiedBytes  the most bytes of heap memory registered at once, each registration through a
 *                        direct copy of its own (a NIC pins direct memory only)
 * @param capabilities    RDMA read and write, announced and served
 * @param rnrRetryCount   the RNR retry count of the peers' queue pairs towards this device (7: without end)
 * @param resolveTimeoutMillis how long RDMA-CM may take to resolve a peer's address and route
 * @param maxCollisionRetries how often a connect refused because the peer's own request crossed it is
 *                        made again before the peer counts as unreachable
 */
public record VerbsDeviceConfig(InetSocketAddress bindAddress, int mtu, int sendQueueDepth, int recvQueueDepth,
                                int sharedReceives, int maxPeers, int maxRegistrations, long maxRdmaSize,
                                long maxCopiedBytes, Set<Capability> capabilities, int rnrRetryCount, int resolveTimeoutMillis,
                                int maxCollisionRetries) {

    /** The default MTU: a page of packet, as the EFA RDM endpoint's packets fit. */
    public static final int DEFAULT_MTU = 4096;
    /** The default of both SPI queues. */
    public static final int DEFAULT_QUEUE_DEPTH = 256;
    /** The default number of the device's own receives. */
    public static final int DEFAULT_SHARED_RECEIVES = 256;
    /** The default bound on peers with a connection. */
    public static final int DEFAULT_MAX_PEERS = 1024;
    /** The default bound on registrations. */
    public static final int DEFAULT_MAX_REGISTRATIONS = 4096;
    /** The largest RDMA the EFA device does (EFA RDM protocol v4 §1.1), the default here. */
    public static final long DEFAULT_MAX_RDMA_SIZE = 1L << 30;
    /** The default bound on heap memory registered through copies. */
    public static final long DEFAULT_MAX_COPIED_BYTES = 256L << 20;
    /** RNR retries without end: see {@link VerbsDevice}, "Receiver not ready". */
    public static final int RNR_RETRY_FOREVER = 7;

    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException if a size or bound is not positive or the RNR retry count is
     *     outside 0..7
     */
    public VerbsDeviceConfig {
        Objects.requireNonNull(bindAddress, "bindAddress");
        if (mtu <= 0 || sendQueueDepth <= 0 || recvQueueDepth <= 0 || sharedReceives <= 0 || maxPeers <= 0
                || maxRegistrations <= 0 || maxRdmaSize <= 0 || maxCopiedBytes < 0 || resolveTimeoutMillis <= 0
                || maxCollisionRetries < 0) {
            throw new IllegalArgumentException("sizes, depths and bounds must be positive");
        }
        if (maxRdmaSize > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("an RDMA of " + maxRdmaSize + " bytes does not fit a work request");
        }
        if (rnrRetryCount < 0 || rnrRetryCount > RNR_RETRY_FOREVER) {
            throw new IllegalArgumentException("RNR retry count " + rnrRetryCount + " is outside 0..7");
        }
        capabilities = Set.copyOf(Objects.requireNonNull(capabilities, "capabilities"));
    }

    /**
     * @param bindAddress the RDMA device's IP address and the port to listen on
     * @return the defaults on that address
     */
    public static VerbsDeviceConfig on(InetSocketAddress bindAddress) {
        return new VerbsDeviceConfig(bindAddress, DEFAULT_MTU, DEFAULT_QUEUE_DEPTH, DEFAULT_QUEUE_DEPTH,
                DEFAULT_SHARED_RECEIVES, DEFAULT_MAX_PEERS, DEFAULT_MAX_REGISTRATIONS, DEFAULT_MAX_RDMA_SIZE,
                DEFAULT_MAX_COPIED_BYTES, EnumSet.allOf(Capability.class), RNR_RETRY_FOREVER, 2000, 8);
    }

    /** @return this configuration on another address */
    public VerbsDeviceConfig withBindAddress(InetSocketAddress address) {
        return new VerbsDeviceConfig(address, mtu, sendQueueDepth, recvQueueDepth, sharedReceives, maxPeers,
                maxRegistrations, maxRdmaSize, maxCopiedBytes, capabilities, rnrRetryCount, resolveTimeoutMillis, maxCollisionRetries);
    }

    /** @return this configuration with other SPI queue depths */
    public VerbsDeviceConfig withQueueDepths(int send, int recv) {
        return new VerbsDeviceConfig(bindAddress, mtu, send, recv, sharedReceives, maxPeers, maxRegistrations,
                maxRdmaSize, maxCopiedBytes, capabilities, rnrRetryCount, resolveTimeoutMillis, maxCollisionRetries);
    }

    /** @return this configuration with another number of the device's own receives */
    public VerbsDeviceConfig withSharedReceives(int count) {
        return new VerbsDeviceConfig(bindAddress, mtu, sendQueueDepth, recvQueueDepth, count, maxPeers,
                maxRegistrations, maxRdmaSize, maxCopiedBytes, capabilities, rnrRetryCount, resolveTimeoutMillis, maxCollisionRetries);
    }

    /** @return this configuration with another bound on peers */
    public VerbsDeviceConfig withMaxPeers(int count) {
        return new VerbsDeviceConfig(bindAddress, mtu, sendQueueDepth, recvQueueDepth, sharedReceives, count,
                maxRegistrations, maxRdmaSize, maxCopiedBytes, capabilities, rnrRetryCount, resolveTimeoutMillis, maxCollisionRetries);
    }

    /** @return this configuration with other capabilities */
    public VerbsDeviceConfig withCapabilities(Set<Capability> set) {
        return new VerbsDeviceConfig(bindAddress, mtu, sendQueueDepth, recvQueueDepth, sharedReceives, maxPeers,
                maxRegistrations, maxRdmaSize, maxCopiedBytes, set, rnrRetryCount, resolveTimeoutMillis, maxCollisionRetries);
    }

    /** @return this configuration with another bound on heap memory registered through copies */
    public VerbsDeviceConfig withMaxCopiedBytes(long bytes) {
        return new VerbsDeviceConfig(bindAddress, mtu, sendQueueDepth, recvQueueDepth, sharedReceives, maxPeers,
                maxRegistrations, maxRdmaSize, bytes, capabilities, rnrRetryCount, resolveTimeoutMillis,
                maxCollisionRetries);
    }

    /** @return this configuration with another MTU */
    public VerbsDeviceConfig withMtu(int bytes) {
        return new VerbsDeviceConfig(bindAddress, bytes, sendQueueDepth, recvQueueDepth, sharedReceives, maxPeers,
                maxRegistrations, maxRdmaSize, maxCopiedBytes, capabilities, rnrRetryCount, resolveTimeoutMillis, maxCollisionRetries);
    }
}
