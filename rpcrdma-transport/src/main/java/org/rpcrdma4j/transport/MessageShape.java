package org.rpcrdma4j.transport;

/**
 * One way a call or a reply travels (RFC 8166 §3.5), as a requester chose or met it; counted in
 * {@link TransportStatistics#shapes()}.
 */
public enum MessageShape {
    /** A call sent whole in one Send (RDMA_MSG, no Read chunk). */
    CALL_INLINE,
    /** A call whose DDP-eligible items went in Read chunks. */
    CALL_READ_CHUNKS,
    /** A call sent whole in a Position-zero Read chunk (RDMA_NOMSG). */
    CALL_POSITION_ZERO,
    /** A call that provided Write chunks for its reply. */
    CALL_WRITE_CHUNKS,
    /** A call that provided a Reply chunk. */
    CALL_REPLY_CHUNK,
    /** A reply that came whole in one Send. */
    REPLY_INLINE,
    /** A reply whose DDP-eligible data the responder wrote into Write chunks. */
    REPLY_WRITE_CHUNKS,
    /** A reply the responder wrote into the Reply chunk (RDMA_NOMSG). */
    REPLY_REPLY_CHUNK
}
