package org.rpcrdma4j.fabric.rc;

/**
 * Events an {@link RcFabric} counts ({@link RcFabricStatistics#counter}). Beside them the fabric counts
 * each RDMA-CM event it received ({@link RcFabricStatistics#cmEvents}).
 */
public enum RcCounter {
    /**
     * Chunk registrations made with an {@code ibv_reg_mr} of their own, per call: memory a peer reads
     * or writes when the device has no memory windows, and what a chunk pool had no room for.
     */
    PER_CALL_REGISTRATIONS,
    /** Memory windows bound over a requester's chunk memory, one per chunk registration of a call. */
    WINDOWS_BOUND,
    /** Window keys the peer invalidated with a Send with Invalidate as its reply arrived. */
    REMOTE_INVALIDATIONS,
    /** Window keys invalidated by a local invalidate: the peer did not, or the call ended without its reply. */
    LOCAL_INVALIDATIONS,
    /** Work completions flushed: the connection was ending, its queue pair in the error state. */
    FLUSHED_COMPLETIONS,
    /** Work completions that failed otherwise; each ends its connection. */
    FAILED_COMPLETIONS,
    /**
     * Bytes of payload the fabric copied: messages between the transport's buffers and the
     * connections' registered slots, chunks into and out of pool blocks and native copies.
     */
    BYTES_COPIED
}
