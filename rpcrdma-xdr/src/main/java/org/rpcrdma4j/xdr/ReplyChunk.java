package org.rpcrdma4j.xdr;

import java.util.List;
import java.util.Objects;

/**
 * The Reply chunk (RFC 8166 §3.5.3): a Write chunk into which the responder writes the whole RPC
 * reply when it does not fit inline, answering with RDMA_NOMSG. In that reply the chunk is echoed
 * with the bytes written per segment.
 *
 * @param segments the segments in array order, at least one
 */
public record ReplyChunk(List<Segment> segments) {

    /**
     * Copies the segment list and checks the chunk is not empty.
     *
     * @param segments the segments in array order, at least one
     */
    public ReplyChunk {
        segments = List.copyOf(Objects.requireNonNull(segments, "segments"));
        if (segments.isEmpty()) {
            throw new IllegalArgumentException("a Reply chunk has at least one segment");
        }
    }

    /** @return the sum of the segment lengths: the room for the reply, or the bytes written into it */
    public long length() {
        return Chunks.length(segments);
    }
}
