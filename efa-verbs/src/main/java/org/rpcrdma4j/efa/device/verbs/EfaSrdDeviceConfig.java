package org.rpcrdma4j.efa.device.verbs;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import org.rpcrdma4j.efa.device.Capability;

/**
 * How an {@link EfaSrdDevice} is opened and what it holds at most. Everything it allocates is bounded
 * here; what the NIC grants may be less, and then the device announces that.
 *
 * @param deviceName       the EFA device to open, as libibverbs names it ({@code rdmap0s6})
 * @param port             its port, from 1
 * @param sendQueueDepth   the SPI's send queue: sends, RDMA reads and writes until polled
 * @param recvQueueDepth   the SPI's receive queue: buffers posted until polled
 * @param maxAddressHandles the most address handles at once
 * @param maxRegistrations the most memory registrations at once
 * @param maxRdmaSize      the largest RDMA read or write, in bytes, if the NIC's is larger
 * @param maxCopiedBytes   the most bytes of heap memory registered at once, each registration through a
 *                         direct copy of its own (a NIC pins direct memory only)
 * @param capabilities     RDMA read and write, announced only if the NIC has them too
 * @param rnrRetry         how often the NIC retries a Send that found no receive before reporting
 *                         receiver-not-ready, on a NIC that can ({@code EFADV_DEVICE_ATTR_CAPS_RNR_RETRY}); 0..7,
 *                         7 without end, which would keep the SPI's RNR from the sender
 */
public record EfaSrdDeviceConfig(String deviceName, int port, int sendQueueDepth, int recvQueueDepth,
                                 int maxAddressHandles, int maxRegistrations, long maxRdmaSize, long maxCopiedBytes,
                                 Set<Capability> capabilities, int rnrRetry) {

    /** The default of both SPI queues. */
    public static final int DEFAULT_QUEUE_DEPTH = 256;
    /** The default bound on address handles. */
    public static final int DEFAULT_MAX_ADDRESS_HANDLES = 1024;
    /** The default bound on registrations. */
    public static final int DEFAULT_MAX_REGISTRATIONS = 4096;
    /** The largest RDMA the EFA device does (EFA RDM protocol v4 §1.1). */
    public static final long DEFAULT_MAX_RDMA_SIZE = 1L << 30;
    /** The default bound on heap memory registered through copies. */
    public static final long DEFAULT_MAX_COPIED_BYTES = 256L << 20;
    /** libfabric's EFA RDM endpoint's RNR retries ({@code EFA_RDM_DEFAULT_RNR_RETRY}), then the endpoint backs off. */
    public static final int DEFAULT_RNR_RETRY = 3;

    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException if a size or bound is not positive, the port is below 1 or the RNR
     *     retry count is outside 0..6
     */
    public EfaSrdDeviceConfig {
        Objects.requireNonNull(deviceName, "deviceName");
        if (port < 1 || sendQueueDepth <= 0 || recvQueueDepth <= 0 || maxAddressHandles <= 0 || maxRegistrations <= 0
                || maxRdmaSize <= 0 || maxCopiedBytes < 0) {
            throw new IllegalArgumentException("port, sizes, depths and bounds must be positive");
        }
        if (maxRdmaSize > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("an RDMA of " + maxRdmaSize + " bytes does not fit a work request");
        }
        if (rnrRetry < 0 || rnrRetry > 6) {
            throw new IllegalArgumentException("RNR retry count " + rnrRetry + " is outside 0..6 (7 never reports RNR)");
        }
        capabilities = Set.copyOf(Objects.requireNonNull(capabilities, "capabilities"));
    }

    /**
     * @param deviceName the EFA device's name
     * @return the defaults on its port 1
     */
    public static EfaSrdDeviceConfig on(String deviceName) {
        return new EfaSrdDeviceConfig(deviceName, 1, DEFAULT_QUEUE_DEPTH, DEFAULT_QUEUE_DEPTH,
                DEFAULT_MAX_ADDRESS_HANDLES, DEFAULT_MAX_REGISTRATIONS, DEFAULT_MAX_RDMA_SIZE, DEFAULT_MAX_COPIED_BYTES,
                EnumSet.allOf(Capability.class), DEFAULT_RNR_RETRY);
    }

    /** @return this configuration with other SPI queue depths */
    public EfaSrdDeviceConfig withQueueDepths(int send, int recv) {
        return new EfaSrdDeviceConfig(deviceName, port, send, recv, maxAddressHandles, maxRegistrations, maxRdmaSize,
                maxCopiedBytes, capabilities, rnrRetry);
    }

    /** @return this configuration with another bound on address handles */
    public EfaSrdDeviceConfig withMaxAddressHandles(int count) {
        return new EfaSrdDeviceConfig(deviceName, port, sendQueueDepth, recvQueueDepth, count, maxRegistrations,
                maxRdmaSize, maxCopiedBytes, capabilities, rnrRetry);
    }

    /** @return this configuration with another bound on registrations */
    public EfaSrdDeviceConfig withMaxRegistrations(int count) {
        return new EfaSrdDeviceConfig(deviceName, port, sendQueueDepth, recvQueueDepth, maxAddressHandles, count,
                maxRdmaSize, maxCopiedBytes, capabilities, rnrRetry);
    }

    /** @return this configuration with other capabilities allowed */
    public EfaSrdDeviceConfig withCapabilities(Set<Capability> set) {
        return new EfaSrdDeviceConfig(deviceName, port, sendQueueDepth, recvQueueDepth, maxAddressHandles,
                maxRegistrations, maxRdmaSize, maxCopiedBytes, set, rnrRetry);
    }

    /** @return this configuration with another largest RDMA */
    public EfaSrdDeviceConfig withMaxRdmaSize(long bytes) {
        return new EfaSrdDeviceConfig(deviceName, port, sendQueueDepth, recvQueueDepth, maxAddressHandles,
                maxRegistrations, bytes, maxCopiedBytes, capabilities, rnrRetry);
    }
}
