package org.rpcrdma4j.efa.wire;

/**
 * The rules {@link PacketDecoder} enforces, one constant per rule, each with a short stable id for logs,
 * counters and the testbed's JSON output.
 */
public enum DecodeError {
    /** A header, optional header or array the packet declares does not fit in the bytes received. */
    TRUNCATED("truncated"),
    /** The base header's {@code version} is not 4 (protocol section 1.3). */
    BAD_VERSION("bad-version"),
    /** The base header's {@code type} is not a protocol v4 packet type (protocol table 1.2, DISCREPANCIES.md B1). */
    UNKNOWN_TYPE("unknown-type"),
    /** The type is RTS or CONNACK, which protocol v4 retired (protocol table 1.2). */
    RETIRED_TYPE("retired-type"),
    /** A HANDSHAKE {@code nextra_p3} is below 3, so {@code extra_info} would have a negative length, or above the limit. */
    NEXTRA_P3("nextra-p3"),
    /** An {@code rma_iov_count} or {@code read_iov_count} exceeds the configured limit. */
    IOV_COUNT("iov-count"),
    /** A REQ raw-address header's {@code addr_len} is shorter than the 32-byte raw address (protocol section 1.4). */
    RAW_ADDR_LENGTH("raw-addr-len"),
    /** A CTSDATA, READRSP or ATOMRSP {@code seg_length} claims more data than the packet carries. */
    SEG_LENGTH("seg-length"),
    /** A CTS {@code recv_length} is 0, which would stall the long-CTS protocol (protocol section 3.2). */
    CTS_RECV_LENGTH("cts-recv-length");

    private final String id;

    DecodeError(String id) {
        this.id = id;
    }

    /**
     * Returns the short kebab-case id of the rule.
     *
     * @return the id, stable across releases
     */
    public String id() {
        return id;
    }
}
