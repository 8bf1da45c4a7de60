package org.rpcrdma4j.xdr;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A Read chunk (RFC 8166 §3.4.5): the segments of the Read list that share one position, in list
 * order. The responder concatenates them into the call's XDR stream at that position and supplies the
 * XDR pad itself, because a requester never moves pad bytes in a chunk.
 *
 * @param position the XDR position of the chunk, u32; zero for a Position-zero Read chunk
 * @param segments the segments in Read-list order, at least one
 */
public record ReadChunk(int position, List<Segment> segments) {

    /**
     * Copies the segment list and checks the chunk is not empty.
     *
     * @param position the XDR position of the chunk, u32
     * @param segments the segments in Read-list order, at least one
     */
    public ReadChunk {
        segments = List.copyOf(Objects.requireNonNull(segments, "segments"));
        if (segments.isEmpty()) {
            throw new IllegalArgumentException("a Read chunk has at least one segment");
        }
    }

    /** @return the sum of the segment lengths: the chunk's data without XDR pad */
    public long length() {
        return Chunks.length(segments);
    }

    /** @return the position as an unsigned value */
    public long unsignedPosition() {
        return Integer.toUnsignedLong(position);
    }

    /** @return this chunk as Read-list entries, one per segment, all carrying the chunk's position */
    public List<ReadSegment> toReadSegments() {
        List<ReadSegment> list = new ArrayList<>(segments.size());
        for (Segment segment : segments) {
            list.add(new ReadSegment(position, segment));
        }
        return list;
    }
}
