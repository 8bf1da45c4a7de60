package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * What a queue pair is created with ({@code struct ibv_qp_init_attr}, and the same first fields of
 * {@code struct ibv_qp_init_attr_ex}): an RC queue pair's, and an SRD queue pair's queues and sizes
 * ({@link SrdQueuePairConfig}).
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

    /**
     * Writes the queues, the sizes and the signalling into an {@code ibv_qp_init_attr} or an
     * {@code ibv_qp_init_attr_ex}, whose fields of these names lie alike.
     *
     * @param init   the struct
     * @param layout its layout
     */
    void writeTo(MemorySegment init, StructLayout layout) {
        init.set(ADDRESS, Structs.offset(layout, "send_cq"), sendQueue.pointer());
        init.set(ADDRESS, Structs.offset(layout, "recv_cq"), receiveQueue.pointer());
        init.set(JAVA_INT, Structs.offset(layout, "cap.max_send_wr"), maxSendRequests);
        init.set(JAVA_INT, Structs.offset(layout, "cap.max_recv_wr"), maxReceiveRequests);
        init.set(JAVA_INT, Structs.offset(layout, "cap.max_send_sge"), maxSendSge);
        init.set(JAVA_INT, Structs.offset(layout, "cap.max_recv_sge"), maxReceiveSge);
        init.set(JAVA_INT, Structs.offset(layout, "cap.max_inline_data"), maxInlineData);
        init.set(JAVA_INT, Structs.offset(layout, "sq_sig_all"), signalAll ? 1 : 0);
    }

    /**
     * @param init   the struct {@link #writeTo} wrote, after the queue pair was created from it
     * @param layout its layout
     * @return these queues and signalling with the sizes the provider granted, which it wrote back into
     *     {@code cap}
     */
    QueuePairConfig granted(MemorySegment init, StructLayout layout) {
        return new QueuePairConfig(sendQueue, receiveQueue,
                init.get(JAVA_INT, Structs.offset(layout, "cap.max_send_wr")),
                init.get(JAVA_INT, Structs.offset(layout, "cap.max_recv_wr")),
                init.get(JAVA_INT, Structs.offset(layout, "cap.max_send_sge")),
                init.get(JAVA_INT, Structs.offset(layout, "cap.max_recv_sge")),
                init.get(JAVA_INT, Structs.offset(layout, "cap.max_inline_data")), signalAll);
    }
}
