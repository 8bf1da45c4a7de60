package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemorySegment;

/**
 * What {@code efadv_query_device} reports of an EFA device: the limits of its SRD queue pairs and
 * what they can do. rdma-core 44's efadv.h has capability bits for RDMA Read, RNR retry and
 * completions that carry the sender's GID; RDMA Write and its bit came with rdma-core 46, so a device
 * queried through libefa 44 never reports it.
 *
 * @param maxSendRequests {@code max_sq_wr}: outstanding send queue requests per queue pair
 * @param maxReceiveRequests {@code max_rq_wr}: posted receives per queue pair
 * @param maxSendSge {@code max_sq_sge}: scatter/gather entries per send request
 * @param maxReceiveSge {@code max_rq_sge}: scatter/gather entries per receive
 * @param inlineBufferSize {@code inline_buf_size}: bytes a send may carry inline
 * @param deviceCaps {@code device_caps}: {@code EFADV_DEVICE_ATTR_CAPS_*} bits, unknown ones kept
 * @param maxRdmaSize {@code max_rdma_size}: bytes one RDMA Read may move (0 without RDMA Read)
 */
public record EfaDeviceAttributes(int maxSendRequests, int maxReceiveRequests, int maxSendSge, int maxReceiveSge,
                                  int inlineBufferSize, int deviceCaps, long maxRdmaSize) {

    /** Reads a {@code struct efadv_device_attr} that the library filled. */
    static EfaDeviceAttributes decode(MemorySegment attr) {
        var l = Structs.EFADV_DEVICE_ATTR;
        return new EfaDeviceAttributes(attr.get(JAVA_INT, Structs.offset(l, "max_sq_wr")),
                attr.get(JAVA_INT, Structs.offset(l, "max_rq_wr")),
                Short.toUnsignedInt(attr.get(JAVA_SHORT, Structs.offset(l, "max_sq_sge"))),
                Short.toUnsignedInt(attr.get(JAVA_SHORT, Structs.offset(l, "max_rq_sge"))),
                Short.toUnsignedInt(attr.get(JAVA_SHORT, Structs.offset(l, "inline_buf_size"))),
                attr.get(JAVA_INT, Structs.offset(l, "device_caps")),
                Integer.toUnsignedLong(attr.get(JAVA_INT, Structs.offset(l, "max_rdma_size"))));
    }

    /** @return whether SRD queue pairs can RDMA Read ({@code EFADV_DEVICE_ATTR_CAPS_RDMA_READ}) */
    public boolean rdmaRead() {
        return (deviceCaps & Constants.EFADV_DEVICE_ATTR_CAPS_RDMA_READ) != 0;
    }

    /**
     * @return whether the device retries a send that found no posted receive ({@code
     *     EFADV_DEVICE_ATTR_CAPS_RNR_RETRY}), so that a queue pair's {@code rnr_retry} means something
     */
    public boolean rnrRetry() {
        return (deviceCaps & Constants.EFADV_DEVICE_ATTR_CAPS_RNR_RETRY) != 0;
    }

    /**
     * @return whether completions can carry the sender's GID ({@code
     *     EFADV_DEVICE_ATTR_CAPS_CQ_WITH_SGID}), which identifies a peer with no address handle yet
     */
    public boolean completionsWithSourceGid() {
        return (deviceCaps & Constants.EFADV_DEVICE_ATTR_CAPS_CQ_WITH_SGID) != 0;
    }
}
