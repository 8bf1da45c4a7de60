package org.rpcrdma4j.efa;

/**
 * Messages of one peer on one tag that an {@link EfaEndpoint} dropped on arrival for lack of room
 * ({@link EndpointCounter#UNEXPECTED_DROPPED_MESSAGES}): they came before any receive took them while
 * the unexpected queue was at one of its {@link EndpointLimits}, or every RX entry was taken. Nothing
 * retransmits them, so the stream of messages they belonged to has lost some: the report names the
 * peer and tag so that the application can end that stream, as a reliable connection breaks on
 * receiver-not-ready. Read with {@link EfaEndpoint#pollDropped}.
 *
 * @param source the peer's handle
 * @param tagged whether the messages were tagged
 * @param tag their tag; 0 if untagged
 * @param messages how many of the peer's messages on this tag were dropped since the last report of it
 * @param unexpected the unexpected messages held for the peer when the last was dropped
 * @param bound the bound the last one met
 * @param limit that bound's value
 */
public record DroppedMessages(long source, boolean tagged, long tag, int messages, int unexpected, Bound bound,
                              long limit) {

    /** The bounds an unexpected message can meet. */
    public enum Bound {
        /** {@link EndpointLimits#unexpectedMessagesPerPeer()}. */
        MESSAGES_PER_PEER,
        /** {@link EndpointLimits#unexpectedBytesPerPeer()}. */
        BYTES_PER_PEER,
        /** {@link EndpointLimits#unexpectedMessagesTotal()}. */
        MESSAGES_TOTAL,
        /** {@link EndpointLimits#unexpectedBytesTotal()}. */
        BYTES_TOTAL,
        /** Every RX entry was taken ({@link EndpointConfig#rxEntryCount()}). */
        RX_ENTRIES
    }
}
