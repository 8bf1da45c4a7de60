package org.rpcrdma4j.verbs;

/**
 * What an EFA SRD queue pair is created with ({@code ibv_qp_init_attr_ex} and
 * {@code efadv_qp_init_attr}): its sizes, and the RDMA operations it may post beside Sends. Ask only
 * for what {@link EfaDeviceAttributes} reports: libefa refuses a queue pair with an operation the
 * device lacks (libefa 44 refuses RDMA Write on every device).
 *
 * @param queues    the completion queues, the sizes, and whether every send request completes with a
 *                  completion, as for an RC queue pair
 * @param rdmaRead  whether RDMA Reads may be posted ({@code IBV_QP_EX_WITH_RDMA_READ})
 * @param rdmaWrite whether RDMA Writes may be posted ({@code IBV_QP_EX_WITH_RDMA_WRITE})
 */
public record SrdQueuePairConfig(QueuePairConfig queues, boolean rdmaRead, boolean rdmaWrite) {

    /** Checks that there are queues; {@link QueuePairConfig} checked their sizes. */
    public SrdQueuePairConfig {
        if (queues == null) {
            throw new IllegalArgumentException("an SRD queue pair needs its queues and sizes");
        }
    }

    /** @return the {@code IBV_QP_EX_WITH_*} bits of the operations asked for: Sends always */
    int sendOpsFlags() {
        return Constants.IBV_QP_EX_WITH_SEND | (rdmaRead ? Constants.IBV_QP_EX_WITH_RDMA_READ : 0)
                | (rdmaWrite ? Constants.IBV_QP_EX_WITH_RDMA_WRITE : 0);
    }
}
