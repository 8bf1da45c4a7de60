package org.rpcrdma4j.efa.wire;

import java.nio.ByteBuffer;

/**
 * The RUNTCTS_RTW mandatory header, packet type 144 (layout from the provider, DISCREPANCIES.md B1 and
 * B3).
 *
 * <p>The provider defines this type but never sends it. Its struct ends in an {@code rma_iov} array, but
 * the provider's header-size rule leaves that array out (DISCREPANCIES.md E1), so {@code
 * rma_iov_count} is carried without entries and the optional headers start at offset 40.
 *
 * <pre>
 *  0       1       2       3       4       5       6       7
 * +-------+-------+---------------+-------------------------------+
 * |  type |version|     flags     |         rma_iov_count         |   0
 * +---------------------------------------------------------------+
 * |                           msg_length                          |   8
 * +-------------------------------+-------------------------------+
 * |            send_id            |         credit_request        |  16
 * +---------------------------------------------------------------+
 * |                           seg_offset                          |  24
 * +---------------------------------------------------------------+
 * |                          runt_length                          |  32
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <p>The first four bytes are the base header, read and written through {@link BaseHeaderFlyweight}.
 * Accessors trust the layout: run {@link PacketDecoder} on received bytes before wrapping them.
 */
public final class RuntCtsRtwFlyweight {

    /** Offset of {@code rma_iov_count} (u32). */
    public static final int RMA_IOV_COUNT_OFFSET = 4;

    /** Offset of {@code msg_length} (u64). */
    public static final int MSG_LENGTH_OFFSET = 8;

    /** Offset of {@code send_id} (u32). */
    public static final int SEND_ID_OFFSET = 16;

    /** Offset of {@code credit_request} (u32). */
    public static final int CREDIT_REQUEST_OFFSET = 20;

    /** Offset of {@code seg_offset} (u64). */
    public static final int SEG_OFFSET_OFFSET = 24;

    /** Offset of {@code runt_length} (u64). */
    public static final int RUNT_LENGTH_OFFSET = 32;

    /** Length of the header in bytes. */
    public static final int HEADER_LENGTH = 40;

    private ByteBuffer buffer;
    private int offset;

    /**
     * Points this flyweight at the first byte of the packet.
     *
     * @param buffer the buffer holding the bytes; its byte order does not matter, fields are little endian
     * @param offset the index of the first byte of the packet in {@code buffer}
     * @return this flyweight
     */
    public RuntCtsRtwFlyweight wrap(ByteBuffer buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /**
     * Returns {@code rma_iov_count}: the number of target {@code efa_rma_iov} entries; the provider lays
     * out none of them (DISCREPANCIES.md E1).
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
    public RuntCtsRtwFlyweight rmaIovCount(long value) {
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
    public RuntCtsRtwFlyweight msgLength(long value) {
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
    public RuntCtsRtwFlyweight sendId(long value) {
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
    public RuntCtsRtwFlyweight creditRequest(long value) {
        LittleEndian.putU32(buffer, offset + CREDIT_REQUEST_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code seg_offset}: the offset within the whole message of the data this packet carries.
     *
     * @return a u64; compare it with {@link Long#compareUnsigned}
     */
    public long segOffset() {
        return LittleEndian.getU64(buffer, offset + SEG_OFFSET_OFFSET);
    }

    /**
     * Sets {@code seg_offset}.
     *
     * @param value the new value, any bit pattern
     * @return this flyweight
     */
    public RuntCtsRtwFlyweight segOffset(long value) {
        LittleEndian.putU64(buffer, offset + SEG_OFFSET_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code runt_length}: the number of bytes of the message the sender delivers in packets
     * before the reader takes over.
     *
     * @return a u64; compare it with {@link Long#compareUnsigned}
     */
    public long runtLength() {
        return LittleEndian.getU64(buffer, offset + RUNT_LENGTH_OFFSET);
    }

    /**
     * Sets {@code runt_length}.
     *
     * @param value the new value, any bit pattern
     * @return this flyweight
     */
    public RuntCtsRtwFlyweight runtLength(long value) {
        LittleEndian.putU64(buffer, offset + RUNT_LENGTH_OFFSET, value);
        return this;
    }
}
