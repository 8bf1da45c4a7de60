package org.rpcrdma4j.verbs;

/**
 * What an EFA SRD queue pair is created with ({@code ibv_qp_init_attr_ex} and
 * {@code efadv_qp_init_attr}): its sizes, and the RDMA operations it may post beside Sends. Ask only
 * for what {@link EfaDeviceAttributes} reports: libefa refuses a queue pair with an operation the
 * device lacks (libefa 44 refuses RDMA Write on every device).
 *
 * @param sendQueue where send-side completions go
 * @param receiveQueue where receive completions go (may be the same queue)
 * @param maxSendRequests outstanding send queue requests
 * @param maxReceiveRequests posted receives
 * @param maxSendSge scatter/gather entries per send request
 * @param maxReceiveSge scatter/gather entries per receive
 * @param maxInlineData bytes a send may carry inline, 0 for none
 * @param rdmaRead whether RDMA Reads may be posted ({@code IBV_QP_EX_WITH_RDMA_READ})
 * @param rdmaWrite whether RDMA Writes may be posted ({@code IBV_QP_EX_WITH_RDMA_WRITE})
 */
public record SrdQueuePairConfig(CompletionQueue sendQueue, CompletionQueue receiveQueue, int maxSendRequests,
                                 int maxReceiveRequests, int maxSendSge, int maxReceiveSge, int maxInlineData,
                                 boolean rdmaRead, boolean rdmaWrite) {
    /** Checks the counts. */
    public SrdQueuePairConfig {
        if (sendQueue == null || receiveQueue == null) {
            throw new IllegalArgumentException("a queue pair needs a send and a receive completion queue");
        }
        if (maxSendRequests < 1 || maxReceiveRequests < 1 || maxSendSge < 1 || maxReceiveSge < 1
                || maxInlineData < 0) {
            throw new IllegalArgumentException("queue sizes must be positive: " + maxSendRequests + "/"
                    + maxReceiveRequests + " requests, " + maxSendSge + "/" + maxReceiveSge + " sge, inline "
                    + maxInlineData);
        }
    }

    /** @return the {@code IBV_QP_EX_WITH_*} bits of the operations asked for: Sends always */
    int sendOpsFlags() {
        return Constants.IBV_QP_EX_WITH_SEND | (rdmaRead ? Constants.IBV_QP_EX_WITH_RDMA_READ : 0)
                | (rdmaWrite ? Constants.IBV_QP_EX_WITH_RDMA_WRITE : 0);
    }
}
