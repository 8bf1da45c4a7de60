package org.rpcrdma4j.xdr;

/**
 * Every rule the strict decoder enforces, with its short id, the answer a responder gives when the
 * rule is broken, and where the rule comes from.
 */
public enum Rule {
    /** Fewer than 4 bytes: there is no XID to answer to. */
    NO_XID("no-xid", Action.DROP, "RFC 8166 §4.5: an answer needs the failing message's XID"),
    /** Shorter than the four fixed words; Linux svcrdma still answers as long as an XID is there. */
    SHORT_HEADER("short-header", Action.ERR_CHUNK, "RFC 8166 §4.5.2; Linux svc_rdma_xdr_decode_req"),
    /** {@code rdma_vers} is not 1. */
    BAD_VERSION("vers", Action.ERR_VERS, "RFC 8166 §4.5.1"),
    /** RDMA_MSGP is reserved; a received one is answered ERR_CHUNK. */
    RDMA_MSGP("msgp", Action.ERR_CHUNK, "RFC 8166 §4.6.1"),
    /** RDMA_DONE is reserved; Linux svcrdma drops a received one. */
    RDMA_DONE("recv-done", Action.DROP, "RFC 8166 §4.6.2; Linux svc_rdma_xdr_decode_req"),
    /** {@code rdma_proc} names no procedure. */
    UNKNOWN_PROC("proc", Action.ERR_CHUNK, "RFC 8166 §4.5.2"),
    /** An RDMA_ERROR that cannot be decoded; RDMA_ERROR is never answered, to avoid loops. */
    BAD_RDMA_ERROR("bad-error", Action.DROP, "RFC 8166 §4.5"),
    /** The header ends inside a chunk list. */
    TRUNCATED_CHUNK_LIST("truncated", Action.ERR_CHUNK, "RFC 8166 §4.5.2"),
    /** An XDR optional-data discriminator is neither 0 nor 1. */
    BAD_DISCRIMINATOR("discriminator", Action.ERR_CHUNK, "RFC 4506 §4.19; RFC 8166 §4.1"),
    /** A Read segment's position is not a multiple of four. */
    READ_POSITION_UNALIGNED("read-pos-align", Action.ERR_CHUNK, "RFC 8166 §3.4.5"),
    /** A Write chunk or the Reply chunk is a counted array of zero segments. */
    EMPTY_CHUNK("empty-chunk", Action.ERR_CHUNK, "RFC 8166 §3.4.4: a chunk has one or more segments"),
    /** A chunk has more segments than the configured limit. */
    TOO_MANY_SEGMENTS("segment-count", Action.ERR_CHUNK, "configured limit"),
    /** The Read list has more distinct positions than the configured limit. */
    TOO_MANY_READ_CHUNKS("read-chunk-count", Action.ERR_CHUNK, "configured limit"),
    /** The Write list has more chunks than the configured limit. */
    TOO_MANY_WRITE_CHUNKS("write-chunk-count", Action.ERR_CHUNK, "configured limit"),
    /** RDMA_NOMSG without any chunk: the RPC message is nowhere. */
    NOMSG_WITHOUT_CHUNKS("nomsg-no-chunks", Action.ERR_CHUNK, "RFC 8166 §4.5.2"),
    /** A Read chunk's position lies beyond the message it is inserted into. */
    READ_CHUNK_OUTSIDE_MESSAGE("read-chunk-range", Action.ERR_CHUNK,
            "RFC 8166 §3.4.5; Linux pcl_check_read_chunk_positions"),
    /** Two Read chunks overlap in the XDR stream. */
    READ_CHUNKS_OVERLAP("read-chunk-overlap", Action.ERR_CHUNK,
            "RFC 8166 §3.4.5; Linux pcl_check_read_chunk_positions");

    private final String id;
    private final Action action;
    private final String source;

    Rule(String id, Action action, String source) {
        this.id = id;
        this.action = action;
        this.source = source;
    }

    /** @return the short, stable id of this rule (used in logs and in the testbed's JSON) */
    public String id() {
        return id;
    }

    /** @return the answer a responder gives when this rule is broken */
    public Action action() {
        return action;
    }

    /** @return the specification section or implementation the rule comes from */
    public String source() {
        return source;
    }
}
