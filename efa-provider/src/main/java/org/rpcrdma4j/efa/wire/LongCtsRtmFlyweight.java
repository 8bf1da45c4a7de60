package org.rpcrdma4j.efa.wire;

import java.nio.ByteBuffer;

/**
 * The long-CTS RTM mandatory headers: LONGCTS_MSGRTM/TAGRTM (68/69, protocol section 3.2, table 3.5)
 * and DC_LONGCTS_MSGRTM/TAGRTM (137/138), which have the same bytes (DISCREPANCIES.md B2).
 *
 * <p>The first segment of the message follows the optional headers. A packet with {@link
 * PacketFlags#REQ_READ_NACK_FLAG} set is the fallback after a READ_NACK and carries no data
 * (DISCREPANCIES.md B6).
 *
 * <pre>
 *  0       1       2       3       4       5       6       7
 * +-------+-------+---------------+-------------------------------+
 * |  type |version|     flags     |             msg_id            |   0
 * +---------------------------------------------------------------+
 * |                           msg_length                          |   8
 * +-------------------------------+-------------------------------+
 * |            send_id            |         credit_request        |  16
 * +---------------------------------------------------------------+
 * |                              tag                              |  24
 * +---------------------------------------------------------------+
 * (tag is present in the TAGRTM type only)
 * </pre>
 *
 * <p>The first four bytes are the base header, read and written through {@link BaseHeaderFlyweight}.
 * Accessors trust the layout: run {@link PacketDecoder} on received bytes before wrapping them.
 */
public final class LongCtsRtmFlyweight {

    /** Offset of {@code msg_id} (u32). */
    public static final int MSG_ID_OFFSET = 4;

    /** Offset of {@code msg_length} (u64). */
    public static final int MSG_LENGTH_OFFSET = 8;

    /** Offset of {@code send_id} (u32). */
    public static final int SEND_ID_OFFSET = 16;

    /** Offset of {@code credit_request} (u32). */
    public static final int CREDIT_REQUEST_OFFSET = 20;

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
    public LongCtsRtmFlyweight wrap(ByteBuffer buffer, int offset) {
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
    public LongCtsRtmFlyweight msgId(long value) {
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
    public LongCtsRtmFlyweight msgLength(long value) {
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
    public LongCtsRtmFlyweight sendId(long value) {
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
    public LongCtsRtmFlyweight creditRequest(long value) {
        LittleEndian.putU32(buffer, offset + CREDIT_REQUEST_OFFSET, value);
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
    public LongCtsRtmFlyweight tag(long value) {
        LittleEndian.putU64(buffer, offset + TAG_OFFSET, value);
        return this;
    }
}
