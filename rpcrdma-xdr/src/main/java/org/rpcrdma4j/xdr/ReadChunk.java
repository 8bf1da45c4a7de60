package org.rpcrdma4j.xdr;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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

    /**
     * Groups a Read list into Read chunks: one per distinct position, ordered by position, each with
     * its segments in list order (RFC 8166 §3.4.5).
     *
     * @param readList the Read-list entries in wire order
     * @return the Read chunks, empty when the Read list is
     */
    public static List<ReadChunk> group(List<ReadSegment> readList) {
        Map<Integer, List<Segment>> byPosition = new LinkedHashMap<>();
        for (ReadSegment entry : readList) {
            byPosition.computeIfAbsent(entry.position(), p -> new ArrayList<>()).add(entry.segment());
        }
        List<ReadChunk> chunks = new ArrayList<>(byPosition.size());
        byPosition.forEach((position, segments) -> chunks.add(new ReadChunk(position, segments)));
        chunks.sort(Comparator.comparingLong(ReadChunk::unsignedPosition));
        return chunks;
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
