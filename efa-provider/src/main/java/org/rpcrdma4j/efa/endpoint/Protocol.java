package org.rpcrdma4j.efa.endpoint;

/**
 * The subprotocol an operation runs (EFA RDM protocol v4 §3.2, §3.3, §4.1, §4.5, §4.6). An operation that asks
 * for delivery complete runs the same subprotocol, in its DC variant where it has one (§4.2).
 */
enum Protocol {
    /** One EAGER_RTM packet holds the whole message. */
    EAGER,
    /** Several MEDIUM_RTM packets, sent at once, no flow control. */
    MEDIUM,
    /** A LONGCTS_RTM, then CTSDATA packets in the windows the receiver's CTS packets grant. */
    LONG_CTS,
    /** A LONGREAD_RTM describing the registered send buffer; the receiver RDMA-reads it and answers EOR. */
    LONG_READ,
    /**
     * RUNTREAD_RTM packets with the first bytes, each describing the registered send buffer; the receiver
     * RDMA-reads the rest and answers EOR (§4.5).
     */
    RUNT_READ,
    /** Emulated write (§3.3): one EAGER_RTW carries the whole write. */
    EAGER_RTW,
    /** Emulated write (§3.3): a LONGCTS_RTW with the first bytes, then CTSDATA in the windows the target's CTS grant. */
    LONGCTS_RTW,
    /** Emulated write (§4.1): a LONGREAD_RTW describing the registered source; the target RDMA-reads it and answers EOR. */
    LONGREAD_RTW,
    /** Emulated read (§3.3): a SHORT_RTR, answered by one READRSP. */
    SHORT_RTR,
    /** Emulated read (§3.3): a LONGCTS_RTR granting the first window, answered by READRSP and CTSDATA. */
    LONGCTS_RTR,
    /** The target of an emulated read: a READRSP with the first bytes, then CTSDATA in the requester's windows. */
    READ_RESPONSE,
    /**
     * Emulated write atomic (§3.3): one WRITE_RTA carries the operands; it completes when its send does, or, as
     * DC_WRITE_RTA (§4.2), at the target's RECEIPT.
     */
    WRITE_RTA,
    /** Emulated fetch atomic (§3.3): one FETCH_RTA, answered by one ATOMRSP with the elements before. */
    FETCH_RTA,
    /** Emulated compare atomic (§3.3): one COMPARE_RTA with operands and compare data, answered by one ATOMRSP. */
    COMPARE_RTA,
    /** The target of an emulated fetch or compare atomic: one ATOMRSP with the elements before the operation. */
    ATOMIC_RESPONSE,
    /** One device RDMA read, no REQ packet. */
    DIRECT_READ,
    /** One device RDMA write, no REQ packet. */
    DIRECT_WRITE;

    /**
     * §4.2: whether the subprotocol completes at transmission and so has a delivery-complete variant, whose
     * target answers a RECEIPT once the data is in the application's buffer. The others are delivery complete
     * by nature: a long-read's EOR comes after the target's RDMA read into the buffer, an emulated read
     * completes where its data lands, and a direct operation's device completion comes after the remote
     * NIC placed the bytes.
     */
    boolean hasDeliveryCompleteVariant() {
        return switch (this) {
            case EAGER, MEDIUM, LONG_CTS, EAGER_RTW, LONGCTS_RTW, WRITE_RTA -> true;
            default -> false;
        };
    }
}
