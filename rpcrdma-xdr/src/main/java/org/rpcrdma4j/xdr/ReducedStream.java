package org.rpcrdma4j.xdr;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How an RPC message's XDR stream splits between the inline part of an RPC-over-RDMA message and its
 * chunks (RFC 8166 §3.4.1 "reducing an XDR stream", round-up per §3.4.5 and §3.4.6).
 *
 * <p>The unreduced stream is tiled by {@link Region}s in stream order: {@code INLINE} ranges that are
 * sent inline (back to back, so each has an offset in the inline part too), {@code CHUNK} ranges that
 * are the data of chunk {@code i}, and {@code PAD} ranges, the XDR pad after an odd-length chunked item,
 * which are neither sent inline nor moved by RDMA: the receiver writes zeros there.
 *
 * <p>A sender builds it with {@link #reduce} from the stream it encoded; a receiver with {@link #expand}
 * from the inline length and the chunks of a received header. Both give the same regions.
 */
public final class ReducedStream {

    /** What a region of the unreduced stream becomes on the wire. */
    public enum Kind {
        /** Sent inline after the transport header. */
        INLINE,
        /** Moved by RDMA in chunk {@link Region#chunk()}. */
        CHUNK,
        /** XDR pad of the preceding chunked item: not moved, rebuilt as zeros. */
        PAD
    }

    /**
     * One contiguous range of the unreduced stream.
     *
     * @param kind         what carries these bytes
     * @param streamOffset offset in the unreduced stream
     * @param length       bytes in the range
     * @param inlineOffset offset in the inline part for INLINE regions, otherwise -1
     * @param chunk        index of the item (in the order given) for CHUNK regions, otherwise -1
     */
    public record Region(Kind kind, long streamOffset, long length, long inlineOffset, int chunk) {
    }

    private final List<Region> regions;
    private final long streamLength;
    private final long inlineLength;

    private ReducedStream(List<Region> regions, long streamLength, long inlineLength) {
        this.regions = List.copyOf(regions);
        this.streamLength = streamLength;
        this.inlineLength = inlineLength;
    }

    /**
     * Reduces a stream: the sender's view.
     *
     * @param streamLength bytes in the unreduced XDR stream, a multiple of four
     * @param items        the items that move to chunks, in stream order, not overlapping, each with its
     *                     pad inside the stream
     * @return the regions of the stream
     * @throws IllegalArgumentException if the items are out of order, overlap or run past the stream
     */
    public static ReducedStream reduce(long streamLength, List<XdrItem> items) {
        Objects.requireNonNull(items, "items");
        if (streamLength < 0 || !RoundUp.isAligned(streamLength)) {
            throw new IllegalArgumentException("stream length " + streamLength + " is not a multiple of 4");
        }
        List<Region> regions = new ArrayList<>(items.size() * 3 + 1);
        long cursor = 0;
        long inline = 0;
        for (int i = 0; i < items.size(); i++) {
            XdrItem item = items.get(i);
            if (item.offset() < cursor) {
                throw new IllegalArgumentException("item " + i + " at " + item.offset()
                        + " overlaps or precedes the previous item, which ends at " + cursor);
            }
            long padded = RoundUp.roundUp(item.length());
            if (item.offset() + padded > streamLength) {
                throw new IllegalArgumentException("item " + i + " at " + item.offset() + " of " + item.length()
                        + " bytes runs past the stream of " + streamLength + " bytes");
            }
            if (item.offset() > cursor) {
                regions.add(new Region(Kind.INLINE, cursor, item.offset() - cursor, inline, -1));
                inline += item.offset() - cursor;
            }
            regions.add(new Region(Kind.CHUNK, item.offset(), item.length(), -1, i));
            if (padded > item.length()) {
                regions.add(new Region(Kind.PAD, item.offset() + item.length(), padded - item.length(), -1, -1));
            }
            cursor = item.offset() + padded;
        }
        if (cursor < streamLength) {
            regions.add(new Region(Kind.INLINE, cursor, streamLength - cursor, inline, -1));
            inline += streamLength - cursor;
        }
        return new ReducedStream(regions, streamLength, inline);
    }

    /**
     * Expands a received message: the receiver's view, given the inline payload length and the Read
     * chunks (position and length) of the header, or the Write chunks with their offsets in the reply.
     *
     * @param inlineLength bytes of the RPC message sent inline, a multiple of four
     * @param items        the chunks as (position, data length), in ascending position
     * @return the regions of the rebuilt stream
     * @throws IllegalArgumentException if a chunk lies outside the message or chunks overlap
     */
    public static ReducedStream expand(long inlineLength, List<XdrItem> items) {
        long streamLength = inlineLength;
        for (XdrItem item : items) {
            streamLength += RoundUp.roundUp(item.length());
        }
        return reduce(streamLength, items);
    }

    /** @return the regions, tiling the unreduced stream in order */
    public List<Region> regions() {
        return regions;
    }

    /** @return bytes in the unreduced stream, pad included */
    public long streamLength() {
        return streamLength;
    }

    /** @return bytes sent inline */
    public long inlineLength() {
        return inlineLength;
    }
}
