package org.rpcrdma4j.transport;

/**
 * The two message streams between a pair of fabric addresses. An EFA RDM endpoint is
 * connectionless, so connection set-up and tear-down travel apart from the RPC-over-RDMA messages,
 * and the data stream carries nothing but RFC 8166 messages (DESIGN.md, "The fabric seen by the
 * transport").
 */
public enum Channel {
    /** RPC-over-RDMA Version One messages only. */
    DATA,
    /** Connection control: connect with RFC 8797 private data, accept, close. */
    CONTROL
}
