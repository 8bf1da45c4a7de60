package org.rpcrdma4j.xdr;

/**
 * An RDMA segment (RFC 8166 §3.4.3): a registered memory region of the sender, as
 * {@code handle} (u32), {@code length} (u32) and {@code offset} (u64).
 *
 * <p>The fields keep the wire bits: a handle or length above 2^31 is negative as an {@code int}, an
 * offset above 2^63 negative as a {@code long}. Use {@link #unsignedHandle()} and
 * {@link #unsignedLength()} for arithmetic and {@link Long#toUnsignedString(long)} to print offsets.
 *
 * @param handle the steering tag (R_key) of the registration, u32
 * @param length the number of bytes in the segment, u32
 * @param offset the address or offset of the first byte, u64; opaque to the peer
 */
public record Segment(int handle, int length, long offset) {

    /** Encoded size of a segment: handle, length and a 64-bit offset. */
    public static final int ENCODED_LENGTH = 16;

    /** @return the handle as an unsigned value */
    public long unsignedHandle() {
        return Integer.toUnsignedLong(handle);
    }

    /** @return the length as an unsigned value */
    public long unsignedLength() {
        return Integer.toUnsignedLong(length);
    }

    @Override
    public String toString() {
        return "Segment[handle=0x" + Integer.toHexString(handle) + ", length=" + unsignedLength()
                + ", offset=0x" + Long.toHexString(offset) + "]";
    }
}
