package org.rpcrdma4j.efa.device;

import java.util.Objects;
import java.util.Set;

/**
 * What a device reports about itself, the part of {@code ibv_query_device} and
 * {@code efadv_query_device} the provider needs.
 *
 * @param mtu the largest packet a send may carry, in bytes
 * @param maxSendQueueDepth how many send-queue operations (send, RDMA read, RDMA write) may be
 *     outstanding, counting each until its completion has been polled
 * @param maxRecvQueueDepth how many receive buffers may be outstanding, counting each until its
 *     completion has been polled
 * @param maxRdmaSize the largest RDMA read or write, in bytes (1 GiB on EFA,
 *     EFA RDM protocol v4 §1.1)
 * @param capabilities the optional abilities the device has
 */
public record DeviceAttributes(int mtu, int maxSendQueueDepth, int maxRecvQueueDepth, long maxRdmaSize,
                               Set<Capability> capabilities) {

    /**
     * Checks and copies the components.
     *
     * @param mtu the largest packet a send may carry, in bytes
     * @param maxSendQueueDepth how many send-queue operations (send, RDMA read, RDMA write) may be
     *     outstanding, counting each until its completion has been polled
     * @param maxRecvQueueDepth how many receive buffers may be outstanding, counting each until its
     *     completion has been polled
     * @param maxRdmaSize the largest RDMA read or write, in bytes (1 GiB on EFA,
     *     EFA RDM protocol v4 §1.1)
     * @param capabilities the optional abilities the device has
     * @throws IllegalArgumentException if a size or depth is not positive
     */
    public DeviceAttributes {
        if (mtu <= 0 || maxSendQueueDepth <= 0 || maxRecvQueueDepth <= 0 || maxRdmaSize <= 0) {
            throw new IllegalArgumentException("MTU, queue depths and RDMA size must be positive");
        }
        capabilities = Set.copyOf(Objects.requireNonNull(capabilities, "capabilities"));
    }

    /**
     * @param capability an optional ability
     * @return whether the device has it
     */
    public boolean has(Capability capability) {
        return capabilities.contains(capability);
    }
}
