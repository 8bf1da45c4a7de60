package org.rpcrdma4j.xdr;

import java.util.List;
import java.util.Objects;

/**
 * A Write chunk (RFC 8166 §3.4.6): a counted array of segments the requester provides for one
 * DDP-eligible result. In a reply the responder echoes the chunk with each segment's length set to
 * the bytes it actually wrote (zero for an unused chunk) and never changes the number of segments.
 *
 * @param segments the segments in array order, at least one
 */
public record WriteChunk(List<Segment> segments) {

    /**
     * Copies the segment list and checks the chunk is not empty.
     *
     * @param segments the segments in array order, at least one
     */
    public WriteChunk {
        segments = List.copyOf(Objects.requireNonNull(segments, "segments"));
        if (segments.isEmpty()) {
            throw new IllegalArgumentException("a Write chunk has at least one segment");
        }
    }

    /** @return the sum of the segment lengths */
    public long length() {
        return Chunks.length(segments);
    }
}
