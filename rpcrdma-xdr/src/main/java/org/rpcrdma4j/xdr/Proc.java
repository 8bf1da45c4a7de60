package org.rpcrdma4j.xdr;

/**
 * The {@code rdma_proc} field of an RPC-over-RDMA Version One header (RFC 8166 §4.2.4).
 *
 * <p>RDMA_MSGP and RDMA_DONE are reserved: never sent, and a received one is an error (§4.6).
 */
public enum Proc {
    /** The RPC message follows the header inline. */
    RDMA_MSG(0),
    /** The RPC message travels in a Position-zero Read chunk (call) or the Reply chunk (reply). */
    RDMA_NOMSG(1),
    /** Reserved (padded RPC-over-RDMA message, never fully specified). */
    RDMA_MSGP(2),
    /** Reserved (Read-Read transfer model, never implemented). */
    RDMA_DONE(3),
    /** Reports an RPC-over-RDMA transport error. */
    RDMA_ERROR(4);

    private static final Proc[] BY_VALUE = values();

    private final int value;

    Proc(int value) {
        this.value = value;
    }

    /** @return the value of this procedure on the wire */
    public int value() {
        return value;
    }

    /**
     * Looks up a procedure by its wire value.
     *
     * @param value the {@code rdma_proc} word, as a signed int
     * @return the procedure, or {@code null} if the value names none
     */
    public static Proc fromValue(int value) {
        return value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
    }
}
