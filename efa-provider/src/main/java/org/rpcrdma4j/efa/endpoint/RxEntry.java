package org.rpcrdma4j.efa.endpoint;

import java.nio.ByteBuffer;

/**
 * One receive (libfabric's rxe): posted by the application, or created by a message that arrived
 * first (unexpected), or both once matched. Its {@link #id} is the {@code recv_id} of a long-CTS
 * message (§3.2 table 3.6); an unexpected entry has none until it is matched.
 *
 * <p>Ownership: {@link #buffer} is the application's from {@code recv} until the completion is
 * written. {@link #staging} is the entry's own copy of what arrived before the match; it is
 * copied into the application's buffer at the match and dropped.
 */
final class RxEntry {

    int id = -1;
    // What the application posted.
    ByteBuffer buffer;
    long context;
    boolean tagged;
    long tag;
    long ignore;
    long source = -1;
    // What arrived.
    Peer peer;
    Protocol protocol;
    int msgId;
    long msgLength;
    long msgTag;
    boolean hasCqData;
    long cqData;
    int sendId;
    long creditRequest;
    ByteBuffer staging;
    long bytesReceived;
    /** Long-CTS: the end of the window our last CTS granted. */
    long windowEnd;
    /** Whether the entry is on the engine's list of CTS packets still to send. */
    boolean ctsPending;

    boolean isMatched() {
        return buffer != null;
    }

    boolean isComplete() {
        return bytesReceived >= msgLength;
    }

    /**
     * Places data at a message offset: into the application's buffer as far as it reaches, or
     * before the match into the staging copy.
     */
    void place(long offset, ByteBuffer from, int fromIndex, int count) {
        final ByteBuffer into = isMatched() ? buffer : staging;
        final long room = into.capacity() - offset;
        if (room > 0) {
            into.put((int) offset, from, fromIndex, (int) Math.min(count, room));
        }
        bytesReceived += count;
    }

    /** Matches an unexpected entry to what the application posted, and hands over the staged bytes. */
    void attach(RxEntry posted) {
        id = posted.id;
        buffer = posted.buffer;
        context = posted.context;
        tagged = posted.tagged;
        tag = posted.tag;
        ignore = posted.ignore;
        source = posted.source;
        if (staging != null) {
            final int count = Math.min(staging.capacity(), buffer.capacity());
            buffer.put(0, staging, 0, count);
            staging = null;
        }
    }
}
