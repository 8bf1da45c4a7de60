package org.rpcrdma4j.efa.device.udp;

/**
 * A datagram is not a frame of {@link UdpDevice}'s format, or breaks one of its rules; {@link #rule()}
 * says which. Immutable and stackless, as a bad datagram is an expected event, not a bug to trace.
 */
public final class SrdFrameDecodeException extends Exception {

    private static final long serialVersionUID = 1L;

    /** The checks {@link SrdFrameHeader#decode} makes, which are those the device makes before it drops a datagram. */
    public enum Rule {
        /** Shorter than the transport header, or a DATA frame shorter than its operation header. */
        TRUNCATED("truncated"),
        /** The first two bytes are not the format's magic, "UD". */
        BAD_MAGIC("bad-magic"),
        /** The version is not this format's. */
        BAD_VERSION("bad-version"),
        /** The frame type is none of DATA, ACK, PROBE. */
        UNKNOWN_TYPE("unknown-type"),
        /** An ACK frame whose acknowledgement fields are not marked valid: it acknowledges nothing. */
        NO_ACK("no-ack"),
        /** A DATA frame's payload length is not the number of bytes after its headers. */
        PAYLOAD_LENGTH("payload-length"),
        /** A DATA frame's operation is not one of the format's. */
        UNKNOWN_OP("unknown-op"),
        /** A RESULT's status is not a {@link org.rpcrdma4j.efa.device.CompletionStatus} number. */
        UNKNOWN_STATUS("unknown-status"),
        /** An RDMA write or read-response segment that does not lie within the operation's total length. */
        SEGMENT_RANGE("segment-range");

        private final String id;

        Rule(String id) {
            this.id = id;
        }

        /** @return the short kebab-case id of the rule, stable across releases */
        public String id() {
            return id;
        }
    }

    private final Rule rule;

    /**
     * @param rule the broken rule
     * @param message what was wrong, naming the offending value
     */
    SrdFrameDecodeException(Rule rule, String message) {
        super(message, null, false, false);
        this.rule = rule;
    }

    /** @return the rule the datagram broke */
    public Rule rule() {
        return rule;
    }
}
