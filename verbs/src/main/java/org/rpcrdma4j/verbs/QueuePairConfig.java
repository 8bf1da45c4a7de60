package org.rpcrdma4j.verbs;

/**
 * What an RC queue pair is created with ({@code struct ibv_qp_init_attr}).
 *
 * @param sendQueue where send-side completions go
 * @param receiveQueue where receive completions go (may be the same queue)
 * @param maxSendRequests outstanding send queue requests (Sends, RDMA Reads and Writes, binds)
 * @param maxReceiveRequests posted receives; an RPC-over-RDMA server posts one per credit
 * @param maxSendSge scatter/gather entries per send request
 * @param maxReceiveSge scatter/gather entries per receive
 * @param maxInlineData bytes a send may carry inline (copied at post time), 0 for none
 * @param signalAll whether every send request completes with a completion, not only the signaled ones
 */
public record QueuePairConfig(CompletionQueue sendQueue, CompletionQueue receiveQueue, int maxSendRequests,
                              int maxReceiveRequests, int maxSendSge, int maxReceiveSge, int maxInlineData,
                              boolean signalAll) {
    /** Checks the counts. */
    public QueuePairConfig {
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
}
