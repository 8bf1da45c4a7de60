package org.rpcrdma4j.efa.wire;

import java.nio.ByteBuffer;

/**
 * The DC_EAGER_MSGRTM and DC_EAGER_TAGRTM mandatory headers, packet types 133 and 134 (protocol
 * section 4.2; layout from the provider, DISCREPANCIES.md B2).
 *
 * <p>The delivery-complete variant of the eager RTM adds {@code send_id} so the receiver can address its
 * RECEIPT.
 *
 * <pre>
 *  0       1       2       3       4       5       6       7
 * +-------+-------+---------------+-------------------------------+
 * |  type |version|     flags     |             msg_id            |   0
 * +-------------------------------+-------------------------------+
 * |            send_id            |            padding            |   8
 * +---------------------------------------------------------------+
 * |                              tag                              |  16
 * +---------------------------------------------------------------+
 * (tag is present in the TAGRTM type only)
 * </pre>
 *
 * <p>The first four bytes are the base header, read and written through {@link BaseHeaderFlyweight}.
 * Accessors trust the layout: run {@link PacketDecoder} on received bytes before wrapping them.
 */
public final class DcEagerRtmFlyweight {

    /** Offset of {@code msg_id} (u32). */
    public static final int MSG_ID_OFFSET = 4;

    /** Offset of {@code send_id} (u32). */
    public static final int SEND_ID_OFFSET = 8;

    /** Offset of {@code padding} (u32). */
    public static final int PADDING_OFFSET = 12;

    /** Offset of {@code tag} (u64). */
    public static final int TAG_OFFSET = 16;

    /** Length of the TAGRTM mandatory header in bytes: the MSGRTM header followed by {@code tag}. */
    public static final int TAGRTM_HEADER_LENGTH = 24;

    /** Length of the MSGRTM mandatory header in bytes. */
    public static final int MSGRTM_HEADER_LENGTH = 16;

    private ByteBuffer buffer;
    private int offset;

    /**
     * Points this flyweight at the first byte of the packet.
     *
     * @param buffer the buffer holding the bytes; its byte order does not matter, fields are little endian
     * @param offset the index of the first byte of the packet in {@code buffer}
     * @return this flyweight
     */
    public DcEagerRtmFlyweight wrap(ByteBuffer buffer, int offset) {
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
    public DcEagerRtmFlyweight msgId(long value) {
        LittleEndian.putU32(buffer, offset + MSG_ID_OFFSET, value);
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
    public DcEagerRtmFlyweight sendId(long value) {
        LittleEndian.putU32(buffer, offset + SEND_ID_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code padding}: unused space; the provider never writes it, so receivers ignore it.
     *
     * @return a u32 widened to a long
     */
    public long padding() {
        return LittleEndian.getU32(buffer, offset + PADDING_OFFSET);
    }

    /**
     * Sets {@code padding}.
     *
     * @param value the new value, in [0, 0xffffffff]
     * @return this flyweight
     */
    public DcEagerRtmFlyweight padding(long value) {
        LittleEndian.putU32(buffer, offset + PADDING_OFFSET, value);
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
    public DcEagerRtmFlyweight tag(long value) {
        LittleEndian.putU64(buffer, offset + TAG_OFFSET, value);
        return this;
    }
}
