package org.rpcrdma4j.efa.wire;

import java.nio.ByteBuffer;

/**
 * The LONGCTS_RTW and DC_LONGCTS_RTW mandatory headers, packet types 71 and 140 (protocol section 3.3,
 * table 3.9; DISCREPANCIES.md B2).
 *
 * <p>The {@code rma_iov} array is part of the mandatory header; the first segment of data follows the
 * optional headers.
 *
 * <pre>
 *  0       1       2       3       4       5       6       7
 * +-------+-------+---------------+-------------------------------+
 * |  type |version|     flags     |         rma_iov_count         |   0
 * +---------------------------------------------------------------+
 * |                           msg_length                          |   8
 * +-------------------------------+-------------------------------+
 * |            send_id            |         credit_request        |  16
 * +-------------------------------+-------------------------------+
 * followed by rma_iov[rma_iov_count] ({@link RmaIovFlyweight}, 24 bytes each)
 * </pre>
 *
 * <p>The first four bytes are the base header, read and written through {@link BaseHeaderFlyweight}.
 * Accessors trust the layout: run {@link PacketDecoder} on received bytes before wrapping them.
 */
public final class LongCtsRtwFlyweight {

    /** Offset of {@code rma_iov_count} (u32). */
    public static final int RMA_IOV_COUNT_OFFSET = 4;

    /** Offset of {@code msg_length} (u64). */
    public static final int MSG_LENGTH_OFFSET = 8;

    /** Offset of {@code send_id} (u32). */
    public static final int SEND_ID_OFFSET = 16;

    /** Offset of {@code credit_request} (u32). */
    public static final int CREDIT_REQUEST_OFFSET = 20;

    /** Length of the header in bytes. */
    public static final int HEADER_LENGTH = 24;

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
    public LongCtsRtwFlyweight wrap(ByteBuffer buffer, int offset) {
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
    public LongCtsRtwFlyweight rmaIovCount(long value) {
        LittleEndian.putU32(buffer, offset + RMA_IOV_COUNT_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code msg_length}: the total length of the message in bytes.
     *
     * @return a u64; compare it with {@link Long#compareUnsigned}
     */
    public long msgLength() {
        return LittleEndian.getU64(buffer, offset + MSG_LENGTH_OFFSET);
    }

    /**
     * Sets {@code msg_length}.
     *
     * @param value the new value, any bit pattern
     * @return this flyweight
     */
    public LongCtsRtwFlyweight msgLength(long value) {
        LittleEndian.putU64(buffer, offset + MSG_LENGTH_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code send_id}: the sender's TX operation id, which the receiver echoes back.
     *
     * @return a u32 widened to a long
     */
    public long sendId() {
        return LittleEndian.getU32(buffer, offset + SEND_ID_OFFSET);
    }

    /**
     * Sets {@code send_id}.
     *
     * @param value the new value, in [0, 0xffffffff]
     * @return this flyweight
     */
    public LongCtsRtwFlyweight sendId(long value) {
        LittleEndian.putU32(buffer, offset + SEND_ID_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code credit_request}: the number of packets the sender asks the receiver to allow in its
     * CTS.
     *
     * @return a u32 widened to a long
     */
    public long creditRequest() {
        return LittleEndian.getU32(buffer, offset + CREDIT_REQUEST_OFFSET);
    }

    /**
     * Sets {@code credit_request}.
     *
     * @param value the new value, in [0, 0xffffffff]
     * @return this flyweight
     */
    public LongCtsRtwFlyweight creditRequest(long value) {
        LittleEndian.putU32(buffer, offset + CREDIT_REQUEST_OFFSET, value);
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
