package org.rpcrdma4j.efa.device;

/** What a completion completes, as {@code ibv_wc_opcode} names it. */
public enum Opcode {
    /** A packet this device sent. */
    SEND,
    /** A packet this device received into a posted receive buffer. */
    RECV,
    /** An RDMA read this device initiated. */
    RDMA_READ,
    /** An RDMA write this device initiated. */
    RDMA_WRITE
}
