package org.rpcrdma4j.efa.endpoint;

/** The subprotocol an operation runs (EFA RDM protocol v4 §3.2, §4.1, §4.6). */
enum Protocol {
    /** One EAGER_RTM packet holds the whole message. */
    EAGER,
    /** Several MEDIUM_RTM packets, sent at once, no flow control. */
    MEDIUM,
    /** A LONGCTS_RTM, then CTSDATA packets in the windows the receiver's CTS packets grant. */
    LONG_CTS,
    /** A LONGREAD_RTM describing the registered send buffer; the receiver RDMA-reads it and answers EOR. */
    LONG_READ,
    /** One device RDMA read, no REQ packet. */
    DIRECT_READ,
    /** One device RDMA write, no REQ packet. */
    DIRECT_WRITE
}
