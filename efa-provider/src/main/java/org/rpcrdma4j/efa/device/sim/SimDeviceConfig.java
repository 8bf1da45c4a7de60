package org.rpcrdma4j.efa.device.sim;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import org.rpcrdma4j.efa.device.Capability;
import org.rpcrdma4j.efa.device.DeviceAttributes;

/**
 * How a simulated device is built: its MTU, queue depths, capabilities and registration limit,
 * and the faults on what it sends. Small queues, switched-off capabilities and a registration
 * limit are how tests provoke resource exhaustion and the fallbacks for a peer without RDMA.
 *
 * @param mtu the largest packet, in bytes
 * @param sendQueueDepth the send queue depth
 * @param recvQueueDepth the receive queue depth
 * @param capabilities the capabilities the device has
 * @param faults the faults on everything the device sends, unless a link has its own
 * @param maxRegistrations how many memory registrations may exist at once; beyond it
 *     {@link SimDevice#registerMemory} fails, as {@code ibv_reg_mr} does when the device is out of
 *     them
 */
public record SimDeviceConfig(int mtu, int sendQueueDepth, int recvQueueDepth, Set<Capability> capabilities,
                              FaultPlan faults, int maxRegistrations) {

    /** The largest RDMA read or write: 1 GiB, as on EFA (EFA RDM protocol v4 §1.1). */
    public static final long MAX_RDMA_SIZE = 1L << 30;

    /** MTU of the default configuration: 8 KiB, like EFA. */
    public static final int DEFAULT_MTU = 8192;

    /** Queue depth of the default configuration; a simulation default, not a hardware figure. */
    public static final int DEFAULT_QUEUE_DEPTH = 256;

    /** 8 KiB MTU, queues of 256, RDMA read and write, no faults, no registration limit. */
    public static final SimDeviceConfig DEFAULT = new SimDeviceConfig(DEFAULT_MTU, DEFAULT_QUEUE_DEPTH,
            DEFAULT_QUEUE_DEPTH, EnumSet.allOf(Capability.class), FaultPlan.NONE, Integer.MAX_VALUE);

    /**
     * Checks and copies the components.
     *
     * @param mtu the largest packet, in bytes
     * @param sendQueueDepth the send queue depth
     * @param recvQueueDepth the receive queue depth
     * @param capabilities the capabilities the device has
     * @param faults the faults on everything the device sends, unless a link has its own
     * @param maxRegistrations how many memory registrations may exist at once
     * @throws IllegalArgumentException if the MTU or a depth is not positive, or the registration
     *     limit is negative
     */
    public SimDeviceConfig {
        if (mtu <= 0 || sendQueueDepth <= 0 || recvQueueDepth <= 0) {
            throw new IllegalArgumentException("MTU and queue depths must be positive");
        }
        if (maxRegistrations < 0) {
            throw new IllegalArgumentException("negative registration limit " + maxRegistrations);
        }
        capabilities = Set.copyOf(Objects.requireNonNull(capabilities, "capabilities"));
        Objects.requireNonNull(faults, "faults");
    }

    /**
     * @param value the MTU
     * @return this configuration with that MTU
     */
    public SimDeviceConfig withMtu(int value) {
        return new SimDeviceConfig(value, sendQueueDepth, recvQueueDepth, capabilities, faults, maxRegistrations);
    }

    /**
     * @param value the send queue depth
     * @return this configuration with that depth
     */
    public SimDeviceConfig withSendQueueDepth(int value) {
        return new SimDeviceConfig(mtu, value, recvQueueDepth, capabilities, faults, maxRegistrations);
    }

    /**
     * @param value the receive queue depth
     * @return this configuration with that depth
     */
    public SimDeviceConfig withRecvQueueDepth(int value) {
        return new SimDeviceConfig(mtu, sendQueueDepth, value, capabilities, faults, maxRegistrations);
    }

    /**
     * @param value the capabilities the device has; those missing are switched off
     * @return this configuration with those capabilities
     */
    public SimDeviceConfig withCapabilities(Set<Capability> value) {
        return new SimDeviceConfig(mtu, sendQueueDepth, recvQueueDepth, value, faults, maxRegistrations);
    }

    /**
     * @param value the faults on what the device sends
     * @return this configuration with those faults
     */
    public SimDeviceConfig withFaults(FaultPlan value) {
        return new SimDeviceConfig(mtu, sendQueueDepth, recvQueueDepth, capabilities, value, maxRegistrations);
    }

    /**
     * @param value how many memory registrations may exist at once; 0 makes every registration fail
     * @return this configuration with that limit
     */
    public SimDeviceConfig withMaxRegistrations(int value) {
        return new SimDeviceConfig(mtu, sendQueueDepth, recvQueueDepth, capabilities, faults, value);
    }

    /** @return the attributes a device with this configuration reports */
    public DeviceAttributes attributes() {
        return new DeviceAttributes(mtu, sendQueueDepth, recvQueueDepth, MAX_RDMA_SIZE, capabilities);
    }
}
