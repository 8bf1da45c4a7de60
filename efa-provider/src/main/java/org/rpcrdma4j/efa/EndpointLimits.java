package org.rpcrdma4j.efa;

/**
 * What one peer may make an {@link EfaEndpoint} hold, so that a peer that misbehaves costs only
 * itself (a peer that sends on tags no receive takes, or stops receiving). Part of
 * {@link EndpointConfig}; build variants with the {@code withX()} methods from {@link #DEFAULT}.
 *
 * <p>The unexpected queue holds messages that arrived before a receive matched them, with their
 * first bytes (a whole eager or medium message, a long-CTS message's first packet, nothing of a
 * long-read message). Packets that arrive ahead of their turn in msg_id order (the reorder window)
 * count against the same byte limits; such a packet dropped is lost to its peer's message stream,
 * which then waits for it, so the per-peer byte limit must cover what one well-behaved peer can
 * have in flight. What exceeds a limit is dropped and counted
 * ({@link EndpointCounter#UNEXPECTED_DROPPED_MESSAGES}, {@link EndpointCounter#REORDER_OVERFLOW_PACKETS}).
 * libfabric bounds its unexpected messages by its pool of operation entries, sized from the
 * endpoint's TX and RX sizes ({@code FI_EFA_TX_SIZE}, {@code FI_EFA_RX_SIZE}); here the RX entry
 * table bounds them too, and these limits bound them per peer and by bytes.
 *
 * <p>Receiver-not-ready: a peer that keeps answering RNR holds at most {@code packetsPerPeer} of
 * the endpoint's send packet buffers and {@code sendsPerPeer} of its TX entries, so the others
 * keep theirs; after {@code peerUnreachableNs} without accepting a packet it is declared
 * unreachable and its operations complete with {@link EfaErrorCode#PEER_UNREACHABLE}.
 *
 * @param unexpectedMessagesPerPeer the most unexpected messages from one peer
 * @param unexpectedBytesPerPeer the most bytes held for one peer: unexpected messages and early packets
 * @param unexpectedMessagesTotal the most unexpected messages from all peers
 * @param unexpectedBytesTotal the most bytes held for all peers
 * @param sendsPerPeer the most sends, reads and writes in progress to one peer; beyond it the API
 *     returns {@code false} (EAGAIN) for that peer only. The peer's emulated reads this endpoint serves
 *     count with them, and its emulated writes into this endpoint's memory are bounded alike; a request
 *     beyond is refused as an access would be
 * @param packetsPerPeer the most send packet buffers one peer may hold (being built, posted or
 *     waiting for its RNR backoff); further packets to it wait unbuilt, and control packets never
 *     wait. Effectively at most the endpoint's {@code txPacketCount}
 * @param peerUnreachableNs how long a peer may answer RNR, from the first RNR after its last
 *     accepted packet, before it is declared unreachable
 */
public record EndpointLimits(int unexpectedMessagesPerPeer, long unexpectedBytesPerPeer, int unexpectedMessagesTotal,
                             long unexpectedBytesTotal, int sendsPerPeer, int packetsPerPeer,
                             long peerUnreachableNs) {

    /** Default: 256 unexpected messages per peer. */
    public static final int DEFAULT_UNEXPECTED_MESSAGES_PER_PEER = 256;
    /**
     * Default: 8 MiB held per peer, what a peer with the default pool (1024 packets of 8 KiB) can
     * have in flight at once, so that reordering alone never drops a well-behaved peer's packet.
     */
    public static final long DEFAULT_UNEXPECTED_BYTES_PER_PEER = 8L << 20;
    /** Default: 1024 unexpected messages in all, as many as the default RX entries. */
    public static final int DEFAULT_UNEXPECTED_MESSAGES_TOTAL = 1024;
    /** Default: 64 MiB held in all. */
    public static final long DEFAULT_UNEXPECTED_BYTES_TOTAL = 64L << 20;
    /** Default: 256 operations in progress per peer, a quarter of the default TX entries. */
    public static final int DEFAULT_SENDS_PER_PEER = 256;
    /** Default: 128 send packet buffers per peer, an eighth of the default pool. */
    public static final int DEFAULT_PACKETS_PER_PEER = 128;
    /** Default: a peer that answers RNR for 10 s is unreachable (ten times the longest backoff). */
    public static final long DEFAULT_PEER_UNREACHABLE_NS = 10_000_000_000L;

    /** The defaults. */
    public static final EndpointLimits DEFAULT = new EndpointLimits(DEFAULT_UNEXPECTED_MESSAGES_PER_PEER,
            DEFAULT_UNEXPECTED_BYTES_PER_PEER, DEFAULT_UNEXPECTED_MESSAGES_TOTAL, DEFAULT_UNEXPECTED_BYTES_TOTAL,
            DEFAULT_SENDS_PER_PEER, DEFAULT_PACKETS_PER_PEER, DEFAULT_PEER_UNREACHABLE_NS);

    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException if a count or time is not positive or a byte limit negative
     */
    public EndpointLimits {
        if (unexpectedMessagesPerPeer < 0 || unexpectedBytesPerPeer < 0 || unexpectedMessagesTotal < 0
                || unexpectedBytesTotal < 0 || sendsPerPeer < 1 || packetsPerPeer < 1 || peerUnreachableNs < 1) {
            throw new IllegalArgumentException("unexpected-queue limits must not be negative; per-peer sends, "
                    + "packets and the unreachable time must be positive");
        }
    }

    /**
     * @param messages the most unexpected messages from one peer
     * @param bytes the most bytes held for one peer
     * @return a copy with them
     */
    public EndpointLimits withUnexpectedPerPeer(int messages, long bytes) {
        return new EndpointLimits(messages, bytes, unexpectedMessagesTotal, unexpectedBytesTotal, sendsPerPeer,
                packetsPerPeer, peerUnreachableNs);
    }

    /**
     * @param messages the most unexpected messages from all peers
     * @param bytes the most bytes held for all peers
     * @return a copy with them
     */
    public EndpointLimits withUnexpectedTotal(int messages, long bytes) {
        return new EndpointLimits(unexpectedMessagesPerPeer, unexpectedBytesPerPeer, messages, bytes, sendsPerPeer,
                packetsPerPeer, peerUnreachableNs);
    }

    /**
     * @param sends the most operations in progress to one peer
     * @param packets the most send packet buffers one peer may hold
     * @return a copy with them
     */
    public EndpointLimits withPerPeerSends(int sends, int packets) {
        return new EndpointLimits(unexpectedMessagesPerPeer, unexpectedBytesPerPeer, unexpectedMessagesTotal,
                unexpectedBytesTotal, sends, packets, peerUnreachableNs);
    }

    /** @param value how long a peer may answer RNR before it is unreachable @return a copy with it */
    public EndpointLimits withPeerUnreachableNs(long value) {
        return new EndpointLimits(unexpectedMessagesPerPeer, unexpectedBytesPerPeer, unexpectedMessagesTotal,
                unexpectedBytesTotal, sendsPerPeer, packetsPerPeer, value);
    }
}
