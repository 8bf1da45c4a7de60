package org.rpcrdma4j.xdr;

/**
 * XDR round-up as RPC-over-RDMA uses it (RFC 8166 §3.4.5, §3.4.6; XDR: RFC 4506 §3).
 *
 * <p>Every XDR item starts on a four-byte boundary, so an opaque item of odd length is followed by
 * 1 to 3 pad bytes. When an item moves into a chunk its pad moves nowhere: the sender leaves it out
 * of both the chunk and the inline stream, and the receiver puts it back when it rebuilds the
 * stream. So a Read chunk's length and a Write chunk's written length count data bytes only, while
 * positions, and the space an item takes in the unreduced stream, count the padded length.
 */
public final class RoundUp {

    private RoundUp() {
    }

    /**
     * @param length a byte count, not negative
     * @return {@code length} rounded up to a multiple of four: the space the item takes in the stream
     */
    public static long roundUp(long length) {
        if (length < 0) {
            throw new IllegalArgumentException("negative length " + length);
        }
        return (length + 3) & ~3L;
    }

    /**
     * @param length a byte count, not negative
     * @return the pad bytes (0 to 3) that follow an item of that length; never moved by RDMA
     */
    public static int padLength(long length) {
        return (int) (roundUp(length) - length);
    }

    /**
     * @param position a Read chunk position or other XDR offset, u32
     * @return true when it is a multiple of four, as every Read position must be
     */
    public static boolean isAligned(long position) {
        return (position & 3) == 0;
    }
}
