package org.rpcrdma4j.efa.wire;

import java.nio.ByteBuffer;

/**
 * The MEDIUM_MSGRTM and MEDIUM_TAGRTM mandatory headers, packet types 66 and 67 (protocol section 3.2,
 * table 3.4).
 *
 * <p>Offset 8 holds the length of the whole message, not of this segment as the document says
 * (DISCREPANCIES.md A2); the segment length is the packet length minus the header length.
 *
 * <pre>
 *  0       1       2       3       4       5       6       7
 * +-------+-------+---------------+-------------------------------+
 * |  type |version|     flags     |             msg_id            |   0
 * +---------------------------------------------------------------+
 * |                           msg_length                          |   8
 * +---------------------------------------------------------------+
 * |                           seg_offset                          |  16
 * +---------------------------------------------------------------+
 * |                              tag                              |  24
 * +---------------------------------------------------------------+
 * (tag is present in the TAGRTM type only)
 * </pre>
 *
 * <p>The first four bytes are the base header, read and written through {@link BaseHeaderFlyweight}.
 * Accessors trust the layout: run {@link PacketDecoder} on received bytes before wrapping them.
 */
public final class MediumRtmFlyweight {

    /** Offset of {@code msg_id} (u32). */
    public static final int MSG_ID_OFFSET = 4;

    /** Offset of {@code msg_length} (u64). */
    public static final int MSG_LENGTH_OFFSET = 8;

    /** Offset of {@code seg_offset} (u64). */
    public static final int SEG_OFFSET_OFFSET = 16;

    /** Offset of {@code tag} (u64). */
    public static final int TAG_OFFSET = 24;

    /** Length of the TAGRTM mandatory header in bytes: the MSGRTM header followed by {@code tag}. */
    public static final int TAGRTM_HEADER_LENGTH = 32;

    /** Length of the MSGRTM mandatory header in bytes. */
    public static final int MSGRTM_HEADER_LENGTH = 24;

    private ByteBuffer buffer;
    private int offset;

    /**
     * Points this flyweight at the first byte of the packet.
     *
     * @param buffer the buffer holding the bytes; its byte order does not matter, fields are little endian
     * @param offset the index of the first byte of the packet in {@code buffer}
     * @return this flyweight
     */
    public MediumRtmFlyweight wrap(ByteBuffer buffer, int offset) {
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
    public MediumRtmFlyweight msgId(long value) {
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
    public MediumRtmFlyweight msgLength(long value) {
        LittleEndian.putU64(buffer, offset + MSG_LENGTH_OFFSET, value);
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
    public MediumRtmFlyweight segOffset(long value) {
        LittleEndian.putU64(buffer, offset + SEG_OFFSET_OFFSET, value);
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
    public MediumRtmFlyweight tag(long value) {
        LittleEndian.putU64(buffer, offset + TAG_OFFSET, value);
        return this;
    }
}
