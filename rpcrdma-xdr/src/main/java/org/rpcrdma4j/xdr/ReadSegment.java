package org.rpcrdma4j.xdr;

import java.util.Objects;

/**
 * One entry of the Read list (RFC 8166 §3.4.5): an RDMA segment and the XDR position at which its
 * chunk is inserted into the RPC message. Entries with the same position form one {@link ReadChunk}.
 *
 * @param position byte offset in the (unreduced) RPC message XDR stream, u32, a multiple of four
 * @param segment  the memory the responder pulls with RDMA Read
 */
public record ReadSegment(int position, Segment segment) {

    /** Encoded size of a read segment: position plus a segment. */
    public static final int ENCODED_LENGTH = 4 + Segment.ENCODED_LENGTH;

    /**
     * Checks the segment is present.
     *
     * @param position the XDR position, u32
     * @param segment  the segment, not null
     */
    public ReadSegment {
        Objects.requireNonNull(segment, "segment");
    }

    /** @return the position as an unsigned value */
    public long unsignedPosition() {
        return Integer.toUnsignedLong(position);
    }
}
