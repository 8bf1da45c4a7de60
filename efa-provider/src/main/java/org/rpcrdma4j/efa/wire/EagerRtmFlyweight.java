package org.rpcrdma4j.efa.wire;

import java.nio.ByteBuffer;

/**
 * The EAGER_MSGRTM and EAGER_TAGRTM mandatory headers, packet types 64 and 65 (protocol section 3.2,
 * table 3.3).
 *
 * <p>The whole message follows the optional headers.
 *
 * <pre>
 *  0       1       2       3       4       5       6       7
 * +-------+-------+---------------+-------------------------------+
 * |  type |version|     flags     |             msg_id            |   0
 * +---------------------------------------------------------------+
 * |                              tag                              |   8
 * +---------------------------------------------------------------+
 * (tag is present in the TAGRTM type only)
 * </pre>
 *
 * <p>The first four bytes are the base header, read and written through {@link BaseHeaderFlyweight}.
 * Accessors trust the layout: run {@link PacketDecoder} on received bytes before wrapping them.
 */
public final class EagerRtmFlyweight {

    /** Offset of {@code msg_id} (u32). */
    public static final int MSG_ID_OFFSET = 4;

    /** Offset of {@code tag} (u64). */
    public static final int TAG_OFFSET = 8;

    /** Length of the TAGRTM mandatory header in bytes: the MSGRTM header followed by {@code tag}. */
    public static final int TAGRTM_HEADER_LENGTH = 16;

    /** Length of the MSGRTM mandatory header in bytes. */
    public static final int MSGRTM_HEADER_LENGTH = 8;

    private ByteBuffer buffer;
    private int offset;

    /**
     * Points this flyweight at the first byte of the packet.
     *
     * @param buffer the buffer holding the bytes; its byte order does not matter, fields are little endian
     * @param offset the index of the first byte of the packet in {@code buffer}
     * @return this flyweight
     */
    public EagerRtmFlyweight wrap(ByteBuffer buffer, int offset) {
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
    public EagerRtmFlyweight msgId(long value) {
        LittleEndian.putU32(buffer, offset + MSG_ID_OFFSET, value);
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
    public EagerRtmFlyweight tag(long value) {
        LittleEndian.putU64(buffer, offset + TAG_OFFSET, value);
        return this;
    }
}
