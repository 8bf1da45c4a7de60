package org.rpcrdma4j.verbs;

/**
 * What {@code ibv_query_device} reports of a device, reduced to the limits an RC transport sizes
 * its queues and registrations by.
 *
 * @param firmwareVersion {@code fw_ver}
 * @param nodeGuid {@code node_guid} as a number (the struct holds it big-endian)
 * @param maxMrSize largest registration in bytes
 * @param vendorId IEEE vendor id
 * @param vendorPartId vendor part id
 * @param maxQp queue pairs
 * @param maxQpWr work requests per queue
 * @param deviceCapFlags {@code IBV_DEVICE_*} bits
 * @param maxSge scatter/gather entries per send or receive request
 * @param maxSgeRd scatter/gather entries per RDMA Read request
 * @param maxCq completion queues
 * @param maxCqe entries per completion queue
 * @param maxMr memory registrations
 * @param maxPd protection domains
 * @param maxQpRdAtom RDMA Reads and atomics a queue pair accepts at once (responder resources)
 * @param maxQpInitRdAtom RDMA Reads and atomics a queue pair may have outstanding (initiator depth)
 * @param maxMw memory windows, 0 if the device has none
 * @param physPortCount ports, numbered from 1
 */
public record DeviceAttributes(String firmwareVersion, long nodeGuid, long maxMrSize, int vendorId, int vendorPartId,
                               int maxQp, int maxQpWr, int deviceCapFlags, int maxSge, int maxSgeRd, int maxCq,
                               int maxCqe, int maxMr, int maxPd, int maxQpRdAtom, int maxQpInitRdAtom, int maxMw,
                               int physPortCount) {

    /**
     * @return whether the device has the memory management extensions ({@code
     *     IBV_DEVICE_MEM_MGT_EXTENSIONS}): fast registration, local invalidation and Send with
     *     Invalidate, which svcrdma requires before it invalidates a requester's key remotely
     */
    public boolean memoryManagementExtensions() {
        return (deviceCapFlags & Constants.IBV_DEVICE_MEM_MGT_EXTENSIONS) != 0;
    }

    /**
     * @return whether the device has type 2 memory windows ({@code IBV_DEVICE_MEM_WINDOW_TYPE_2A} or
     *     {@code _2B}, and a nonzero {@code max_mw}): windows bound by a work request on a queue pair,
     *     reachable only through it, invalidated by a local invalidate or the peer's Send with Invalidate
     */
    public boolean memoryWindowsType2() {
        return maxMw > 0 && (deviceCapFlags
                & (Constants.IBV_DEVICE_MEM_WINDOW_TYPE_2A | Constants.IBV_DEVICE_MEM_WINDOW_TYPE_2B)) != 0;
    }
}
