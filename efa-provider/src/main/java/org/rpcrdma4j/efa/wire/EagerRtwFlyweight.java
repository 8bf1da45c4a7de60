package org.rpcrdma4j.efa.wire;

import java.nio.ByteBuffer;

/**
 * The EAGER_RTW mandatory header, packet type 70 (protocol section 3.3, table 3.8).
 *
 * <p>The {@code rma_iov} array is part of the mandatory header; the data to write follows the optional
 * headers.
 *
 * <pre>
 *  0       1       2       3       4       5       6       7
 * +-------+-------+---------------+-------------------------------+
 * |  type |version|     flags     |         rma_iov_count         |   0
 * +-------+-------+---------------+-------------------------------+
 * followed by rma_iov[rma_iov_count] ({@link RmaIovFlyweight}, 24 bytes each)
 * </pre>
 *
 * <p>The first four bytes are the base header, read and written through {@link BaseHeaderFlyweight}.
 * Accessors trust the layout: run {@link PacketDecoder} on received bytes before wrapping them.
 */
public final class EagerRtwFlyweight {

    /** Offset of {@code rma_iov_count} (u32). */
    public static final int RMA_IOV_COUNT_OFFSET = 4;

    /** Length of the header in bytes. */
    public static final int HEADER_LENGTH = 8;

    /** Offset of the {@code rma_iov} array, right after the fixed fields (24 bytes per entry). */
    public static final int RMA_IOV_OFFSET = HEADER_LENGTH;

    private ByteBuffer buffer;
    private int offset;

    /**
     * Points this flyweight at the first byte of the packet.
     *
     * @param buffer the buffer holding the bytes; its byte order does not matter, fields are little endian
     * @param offset the index of the first byte of the packet in {@code buffer}
     * @return this flyweight
     */
    public EagerRtwFlyweight wrap(ByteBuffer buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /**
     * Returns {@code rma_iov_count}: the number of {@code efa_rma_iov} entries that describe the target
     * buffer.
     *
     * @return a u32 widened to a long
     */
    public long rmaIovCount() {
        return LittleEndian.getU32(buffer, offset + RMA_IOV_COUNT_OFFSET);
    }

    /**
     * Sets {@code rma_iov_count}.
     *
     * @param value the new value, in [0, 0xffffffff]
     * @return this flyweight
     */
    public EagerRtwFlyweight rmaIovCount(long value) {
        LittleEndian.putU32(buffer, offset + RMA_IOV_COUNT_OFFSET, value);
        return this;
    }

    /**
     * Returns the index of entry {@code index} of the {@code rma_iov} array, to wrap with {@link RmaIovFlyweight}.
     *
     * @param index the entry, below {@code rma_iov_count}
     * @return the index of the entry in the buffer
     */
    public int rmaIovOffset(int index) {
        return offset + RMA_IOV_OFFSET + index * RmaIovFlyweight.LENGTH;
    }
}
