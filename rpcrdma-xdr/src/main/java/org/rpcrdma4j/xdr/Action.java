package org.rpcrdma4j.xdr;

/** What a responder does with a message it cannot accept, as Linux svcrdma does. */
public enum Action {
    /** Answer RDMA_ERROR / ERR_VERS with low = high = 1. */
    ERR_VERS,
    /** Answer RDMA_ERROR / ERR_CHUNK. */
    ERR_CHUNK,
    /** Drop the message without an answer. */
    DROP
}
