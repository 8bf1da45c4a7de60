package org.rpcrdma4j.efa.wire;

import java.nio.ByteBuffer;

/**
 * The RUNTREAD_MSGRTM and RUNTREAD_TAGRTM mandatory headers, packet types 145 and 146 (protocol
 * section 4.5; the IDs are missing from table 1.2, DISCREPANCIES.md B1).
 *
 * <p>The {@code read_iov} array follows the optional headers, then this packet's part of the runt data.
 *
 * <pre>
 *  0       1       2       3       4       5       6       7
 * +-------+-------+---------------+-------------------------------+
 * |  type |version|     flags     |             msg_id            |   0
 * +---------------------------------------------------------------+
 * |                           msg_length                          |   8
 * +-------------------------------+-------------------------------+
 * |            send_id            |         read_iov_count        |  16
 * +---------------------------------------------------------------+
 * |                           seg_offset                          |  24
 * +---------------------------------------------------------------+
 * |                          runt_length                          |  32
 * +---------------------------------------------------------------+
 * |                              tag                              |  40
 * +---------------------------------------------------------------+
 * (tag is present in the TAGRTM type only)
 * </pre>
 *
 * <p>The first four bytes are the base header, read and written through {@link BaseHeaderFlyweight}.
 * Accessors trust the layout: run {@link PacketDecoder} on received bytes before wrapping them.
 */
public final class RuntReadRtmFlyweight {

    /** Offset of {@code msg_id} (u32). */
    public static final int MSG_ID_OFFSET = 4;

    /** Offset of {@code msg_length} (u64). */
    public static final int MSG_LENGTH_OFFSET = 8;

    /** Offset of {@code send_id} (u32). */
    public static final int SEND_ID_OFFSET = 16;

    /** Offset of {@code read_iov_count} (u32). */
    public static final int READ_IOV_COUNT_OFFSET = 20;

    /** Offset of {@code seg_offset} (u64). */
    public static final int SEG_OFFSET_OFFSET = 24;

    /** Offset of {@code runt_length} (u64). */
    public static final int RUNT_LENGTH_OFFSET = 32;

    /** Offset of {@code tag} (u64). */
    public static final int TAG_OFFSET = 40;

    /** Length of the TAGRTM mandatory header in bytes: the MSGRTM header followed by {@code tag}. */
    public static final int TAGRTM_HEADER_LENGTH = 48;

    /** Length of the MSGRTM mandatory header in bytes. */
    public static final int MSGRTM_HEADER_LENGTH = 40;

    private ByteBuffer buffer;
    private int offset;

    /**
     * Points this flyweight at the first byte of the packet.
     *
     * @param buffer the buffer holding the bytes; its byte order does not matter, fields are little endian
     * @param offset the index of the first byte of the packet in {@code buffer}
     * @return this flyweight
     */
    public RuntReadRtmFlyweight wrap(ByteBuffer buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /**
     * Returns {@code msg_id}: the sender's per-peer message sequence number, which wraps at 2^32.
     *
     * @return a u32 widened to a long
     */
    public long msgId() {
        return LittleEndian.getU32(buffer, offset + MSG_ID_OFFSET);
    }

    /**
     * Sets {@code msg_id}.
     *
     * @param value the new value, in [0, 0xffffffff]
     * @return this flyweight
     */
    public RuntReadRtmFlyweight msgId(long value) {
        LittleEndian.putU32(buffer, offset + MSG_ID_OFFSET, value);
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
    public RuntReadRtmFlyweight msgLength(long value) {
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
    public RuntReadRtmFlyweight sendId(long value) {
        LittleEndian.putU32(buffer, offset + SEND_ID_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code read_iov_count}: the number of {@code read_iov} entries that follow the optional
     * headers.
     *
     * @return a u32 widened to a long
     */
    public long readIovCount() {
        return LittleEndian.getU32(buffer, offset + READ_IOV_COUNT_OFFSET);
    }

    /**
     * Sets {@code read_iov_count}.
     *
     * @param value the new value, in [0, 0xffffffff]
     * @return this flyweight
     */
    public RuntReadRtmFlyweight readIovCount(long value) {
        LittleEndian.putU32(buffer, offset + READ_IOV_COUNT_OFFSET, value);
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
    public RuntReadRtmFlyweight segOffset(long value) {
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
    public RuntReadRtmFlyweight runtLength(long value) {
        LittleEndian.putU64(buffer, offset + RUNT_LENGTH_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code tag}: the tag of a tagged send; meaningful for the TAGRTM types only.
     *
     * @return a u64; compare it with {@link Long#compareUnsigned}
     */
    public long tag() {
        return LittleEndian.getU64(buffer, offset + TAG_OFFSET);
    }

    /**
     * Sets {@code tag}.
     *
     * @param value the new value, any bit pattern
     * @return this flyweight
     */
    public RuntReadRtmFlyweight tag(long value) {
        LittleEndian.putU64(buffer, offset + TAG_OFFSET, value);
        return this;
    }
}
