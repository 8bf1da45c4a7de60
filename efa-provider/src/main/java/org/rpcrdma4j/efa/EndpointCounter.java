package org.rpcrdma4j.efa;

/**
 * Events an endpoint counts instead of reporting them as errors: packets it dropped and normal
 * resource events it absorbed (validate, count and drop, as Aeron's media drivers do). Read them
 * in {@link EfaEndpoint#statistics()}.
 */
public enum EndpointCounter {
    /** Received packets {@code PacketDecoder} rejected. */
    MALFORMED_PACKETS,
    /** Received packets from a sender the endpoint could not identify (no address handle, no raw address). */
    UNKNOWN_PEER_PACKETS,
    /** Received packets whose connid is not that of the peer (QP collision, protocol §4.4). */
    STALE_CONNID_PACKETS,
    /**
     * Peers that came back as a new queue pair on a known GID and QPN (a new connid): each is a new
     * peer, and the old one's packets are stale from then on (§4.4, "QP collision").
     */
    PEER_RESTARTS,
    /** Received packets of a type or variant this endpoint does not implement. */
    UNSUPPORTED_PACKETS,
    /** Received packets that name an operation the endpoint does not have (stale or duplicate ids). */
    ORPHAN_PACKETS,
    /**
     * Received REQ packets whose msg_id lies beyond the reorder window, or that arrived early
     * while the bytes held for their peer were at the unexpected-bytes limit.
     */
    REORDER_OVERFLOW_PACKETS,
    /** Received REQ packets held because an earlier msg_id had not arrived (FI_ORDER_SAS). */
    REORDERED_PACKETS,
    /** Messages that arrived before a matching receive was posted. */
    UNEXPECTED_MESSAGES,
    /**
     * Messages dropped because they arrived before any receive while the unexpected queue was at
     * one of its {@link EndpointLimits} (per peer or in total, by count or by bytes) or every RX
     * entry was taken: an unexpected message holds an RX entry and its bytes until a receive takes
     * it, which bounds what a peer that outruns the receives can make this endpoint hold. Each is
     * reported too, by peer and tag ({@link EfaEndpoint#pollDropped}).
     */
    UNEXPECTED_DROPPED_MESSAGES,
    /**
     * Messages dropped at once because they arrived untagged or on a tag the endpoint did not
     * declare ({@link EndpointConfig#withTags(long...)}), or on a tag it closed
     * ({@link EfaEndpoint#closeTag(long)}).
     */
    UNDECLARED_TAG_MESSAGES,
    /** Unexpected messages dropped from the queue because their tag was closed ({@link EfaEndpoint#closeTag(long)}). */
    CLOSED_TAG_MESSAGES,
    /** Received packets from a peer the endpoint declared unreachable or that was replaced by a restart. */
    DEAD_PEER_PACKETS,
    /** Peers declared unreachable ({@link EfaErrorCode#PEER_UNREACHABLE}). */
    PEERS_UNREACHABLE,
    /**
     * Exceptions caught on the progress path, each contained to the packet, operation or peer it
     * came from; the first is logged with its stack trace.
     */
    PROGRESS_ERRORS,
    /** Packets that came back with receiver-not-ready and were queued for retransmission. */
    RNR_RETRANSMISSIONS,
    /** Times a peer entered RNR backoff. */
    RNR_BACKOFFS,
    /** Packets queued because the device's send queue was full. */
    QUEUE_FULL_PACKETS,
    /** HANDSHAKE packets sent. */
    HANDSHAKES_SENT,
    /** HANDSHAKE packets received. */
    HANDSHAKES_RECEIVED,
    /** Messages sent with the eager protocol: one EAGER_RTM each (§3.2). */
    EAGER_MESSAGES_SENT,
    /** Messages sent with the medium protocol: MEDIUM_RTM packets (§3.2). */
    MEDIUM_MESSAGES_SENT,
    /** Messages sent with the long-CTS subprotocol, READ_NACK fallbacks included (protocol §3.2). */
    LONG_CTS_MESSAGES_SENT,
    /** Messages sent with the long-read subprotocol: LONGREAD_RTM packets built (protocol §4.1). */
    LONG_READ_MESSAGES_SENT,
    /** Long-read messages whose data this endpoint read from the sender and answered with an EOR. */
    LONG_READ_MESSAGES_RECEIVED,
    /**
     * Messages sent with the runting-read subprotocol: their first RUNTREAD_RTM built (protocol §4.5), READ_NACK
     * fallbacks included.
     */
    RUNT_READ_MESSAGES_SENT,
    /** Runting-read messages whose first RUNTREAD_RTM this endpoint took, matched or unexpected (protocol §4.5). */
    RUNT_READ_MESSAGES_RECEIVED,
    /**
     * READ_NACK packets sent: long-read and runting-read messages and long-read writes this endpoint could not read
     * (protocol §4.7).
     */
    READ_NACKS_SENT,
    /** READ_NACK packets received: long-read and runting-read messages and writes that went on as long-CTS (§4.7). */
    READ_NACKS_RECEIVED,
    /** Control packets whose send failed with an error other than RNR (for example to a peer that is gone). */
    CONTROL_SEND_ERRORS,
    /** Direct RDMA reads started (§4.1 "Direct read"). */
    DIRECT_READS,
    /** Direct RDMA writes started (§4.6 "Direct write"). */
    DIRECT_WRITES,
    /** Writes emulated with one EAGER_RTW each (§3.3). */
    EAGER_RTW_WRITES,
    /** Writes emulated with the long-CTS write subprotocol: LONGCTS_RTW packets built, READ_NACK fallbacks included (§3.3). */
    LONGCTS_RTW_WRITES,
    /** Writes emulated with the long-read write subprotocol: LONGREAD_RTW packets built (§4.1). */
    LONGREAD_RTW_WRITES,
    /** Reads emulated with a SHORT_RTR (§3.3). */
    SHORT_RTR_READS,
    /** Reads emulated with a LONGCTS_RTR (§3.3). */
    LONGCTS_RTR_READS,
    /** Write atomics sent, one WRITE_RTA each (§3.3), or DC_WRITE_RTA with delivery complete (§4.2). */
    WRITE_RTA_ATOMICS,
    /** Fetch atomics sent, one FETCH_RTA each (§3.3). */
    FETCH_RTA_ATOMICS,
    /** Compare atomics sent, one COMPARE_RTA each (§3.3). */
    COMPARE_RTA_ATOMICS,
    /** Emulated atomics a peer applied to this endpoint's registered memory, fetches and compares answered (§3.3). */
    EMULATED_ATOMICS_SERVED,
    /** Emulated writes a peer made into this endpoint's registered memory (§3.3). */
    EMULATED_WRITES_SERVED,
    /** Emulated reads a peer made of this endpoint's registered memory, answered with READRSP (§3.3). */
    EMULATED_READS_SERVED,
    /**
     * Emulated RMA and atomic requests refused before any byte was touched: no registration under the key, bytes
     * outside it, a right it does not grant, lengths that disagree, an atomic datatype or operation not served.
     */
    RMA_ACCESS_REFUSED,
    /** PEER_ERROR packets sent: a refused request reported to its initiator (DISCREPANCIES.md B7). */
    PEER_ERRORS_SENT,
    /** PEER_ERROR packets received that ended one of this endpoint's operations. */
    PEER_ERRORS_RECEIVED,
    /**
     * RECEIPT packets sent: a peer's delivery-complete message or write whose data is in place here (§4.2). Sent
     * once the data is in the receive buffer or the written memory, after this endpoint's completion of it.
     */
    RECEIPTS_SENT,
    /**
     * RECEIPT packets received that completed one of this endpoint's delivery-complete operations (§4.2). One that
     * names no such operation waiting for it (unknown, a duplicate, or before its data was sent) counts as
     * {@link #ORPHAN_PACKETS}.
     */
    RECEIPTS_RECEIVED,
    /**
     * Message payload bytes the endpoint copied, counted at every copy: a send's bytes into its
     * packets (EAGER_RTM, MEDIUM_RTM, LONGCTS_RTM, RUNTREAD_RTM, CTSDATA); a received packet's payload into the
     * receive buffer or, while no receive has matched its message, into the message's staging copy;
     * that staging copy into the receive buffer at the match; the payload of an RTM or RTA the reorder window
     * holds (not the headers held with it); an atomic's operands into its RTA, the elements before it into the
     * ATOMRSP and from there into the result buffer. So a message that arrives before its receive counts twice
     * at the receiver, and a packet held for the reorder window once more. Not counted: headers the
     * endpoint writes, and bytes the device moves (packets on the wire, long-read, runting read's reads and
     * direct RDMA).
     */
    BYTES_COPIED
}
