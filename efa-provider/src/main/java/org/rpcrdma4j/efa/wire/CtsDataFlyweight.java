package org.rpcrdma4j.efa.wire;

import java.nio.ByteBuffer;

/**
 * The CTSDATA header, packet type 4 (protocol section 3.2, table 3.7), with its optional connid
 * trailer.
 *
 * <p>Application data follows the header. When {@link PacketFlags#CONNID_HDR_FLAG} is set, an 8-byte
 * trailer holding {@code connid} and 4 bytes of padding sits between the 24-byte header and the data
 * (DISCREPANCIES.md B8: unlike the 4-byte connid header of REQ packets, this one is 8 bytes).
 *
 * <pre>
 *  0       1       2       3       4       5       6       7
 * +-------+-------+---------------+-------------------------------+
 * |  type |version|     flags     |            recv_id            |   0
 * +---------------------------------------------------------------+
 * |                           seg_length                          |   8
 * +---------------------------------------------------------------+
 * |                           seg_offset                          |  16
 * +---------------------------------------------------------------+
 * (connid and connid_padding are present when CONNID_HDR is set; then the data)
 * </pre>
 *
 * <p>The first four bytes are the base header, read and written through {@link BaseHeaderFlyweight}.
 * Accessors trust the layout: run {@link PacketDecoder} on received bytes before wrapping them.
 */
public final class CtsDataFlyweight {

    /** Offset of {@code recv_id} (u32). */
    public static final int RECV_ID_OFFSET = 4;

    /** Offset of {@code seg_length} (u64). */
    public static final int SEG_LENGTH_OFFSET = 8;

    /** Offset of {@code seg_offset} (u64). */
    public static final int SEG_OFFSET_OFFSET = 16;

    /** Offset of {@code opt_connid} (u32). */
    public static final int CONNID_OFFSET = 24;

    /** Offset of {@code opt_connid_padding} (u32). */
    public static final int CONNID_PADDING_OFFSET = 28;

    /** Length of the header in bytes. */
    public static final int HEADER_LENGTH = 24;

    /** Length of the optional connid trailer in bytes. */
    public static final int CONNID_HEADER_LENGTH = 8;

    private ByteBuffer buffer;
    private int offset;

    /**
     * Points this flyweight at the first byte of the packet.
     *
     * @param buffer the buffer holding the bytes; its byte order does not matter, fields are little endian
     * @param offset the index of the first byte of the packet in {@code buffer}
     * @return this flyweight
     */
    public CtsDataFlyweight wrap(ByteBuffer buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /**
     * Returns {@code recv_id}: the {@code recv_id} of the CTS this data answers.
     *
     * @return a u32 widened to a long
     */
    public long recvId() {
        return LittleEndian.getU32(buffer, offset + RECV_ID_OFFSET);
    }

    /**
     * Sets {@code recv_id}.
     *
     * @param value the new value, in [0, 0xffffffff]
     * @return this flyweight
     */
    public CtsDataFlyweight recvId(long value) {
        LittleEndian.putU32(buffer, offset + RECV_ID_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code seg_length}: the number of application data bytes this packet carries.
     *
     * @return a u64; compare it with {@link Long#compareUnsigned}
     */
    public long segLength() {
        return LittleEndian.getU64(buffer, offset + SEG_LENGTH_OFFSET);
    }

    /**
     * Sets {@code seg_length}.
     *
     * @param value the new value, any bit pattern
     * @return this flyweight
     */
    public CtsDataFlyweight segLength(long value) {
        LittleEndian.putU64(buffer, offset + SEG_LENGTH_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code seg_offset}: the offset of this packet's data within the whole message (the
     * document's "in the packet" is an error, DISCREPANCIES.md D8).
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
    public CtsDataFlyweight segOffset(long value) {
        LittleEndian.putU64(buffer, offset + SEG_OFFSET_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code opt_connid}: the sender's connection id, present when the {@code CONNID_HDR} flag is
     * set.
     *
     * @return a u32 widened to a long
     */
    public long connid() {
        return LittleEndian.getU32(buffer, offset + CONNID_OFFSET);
    }

    /**
     * Sets {@code opt_connid}.
     *
     * @param value the new value, in [0, 0xffffffff]
     * @return this flyweight
     */
    public CtsDataFlyweight connid(long value) {
        LittleEndian.putU32(buffer, offset + CONNID_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code opt_connid_padding}: the padding after the trailer's connid; receivers ignore it.
     *
     * @return a u32 widened to a long
     */
    public long connidPadding() {
        return LittleEndian.getU32(buffer, offset + CONNID_PADDING_OFFSET);
    }

    /**
     * Sets {@code opt_connid_padding}.
     *
     * @param value the new value, in [0, 0xffffffff]
     * @return this flyweight
     */
    public CtsDataFlyweight connidPadding(long value) {
        LittleEndian.putU32(buffer, offset + CONNID_PADDING_OFFSET, value);
        return this;
    }
}
