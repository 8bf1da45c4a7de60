package org.rpcrdma4j.efa.wire;

import java.nio.ByteBuffer;

/**
 * The ATOMRSP (atomic response) header, packet type 8 (protocol section 3.3, table 3.15).
 *
 * <p>The responder of an emulated fetch or compare atomic sends the original target data after this
 * header.
 *
 * <pre>
 *  0       1       2       3       4       5       6       7
 * +-------+-------+---------------+-------------------------------+
 * |  type |version|     flags     |             connid            |   0
 * +-------------------------------+-------------------------------+
 * |            reserved           |            recv_id            |   8
 * +---------------------------------------------------------------+
 * |                           seg_length                          |  16
 * +---------------------------------------------------------------+
 * (followed by seg_length bytes of data)
 * </pre>
 *
 * <p>The first four bytes are the base header, read and written through {@link BaseHeaderFlyweight}.
 * Accessors trust the layout: run {@link PacketDecoder} on received bytes before wrapping them.
 */
public final class AtomRspFlyweight {

    /** Offset of {@code connid} (u32). */
    public static final int CONNID_OFFSET = 4;

    /** Offset of {@code reserved} (u32). */
    public static final int RESERVED_OFFSET = 8;

    /** Offset of {@code recv_id} (u32). */
    public static final int RECV_ID_OFFSET = 12;

    /** Offset of {@code seg_length} (u64). */
    public static final int SEG_LENGTH_OFFSET = 16;

    /** Length of the header in bytes. */
    public static final int HEADER_LENGTH = 24;

    private ByteBuffer buffer;
    private int offset;

    /**
     * Points this flyweight at the first byte of the packet.
     *
     * @param buffer the buffer holding the bytes; its byte order does not matter, fields are little endian
     * @param offset the index of the first byte of the packet in {@code buffer}
     * @return this flyweight
     */
    public AtomRspFlyweight wrap(ByteBuffer buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /**
     * Returns {@code connid}: the sender's connection id when the {@code CONNID_HDR} flag is set,
     * otherwise padding (protocol section 4.4).
     *
     * @return a u32 widened to a long
     */
    public long connid() {
        return LittleEndian.getU32(buffer, offset + CONNID_OFFSET);
    }

    /**
     * Sets {@code connid}.
     *
     * @param value the new value, in [0, 0xffffffff]
     * @return this flyweight
     */
    public AtomRspFlyweight connid(long value) {
        LittleEndian.putU32(buffer, offset + CONNID_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code reserved}: reserved; written as zero.
     *
     * @return a u32 widened to a long
     */
    public long reserved() {
        return LittleEndian.getU32(buffer, offset + RESERVED_OFFSET);
    }

    /**
     * Sets {@code reserved}.
     *
     * @param value the new value, in [0, 0xffffffff]
     * @return this flyweight
     */
    public AtomRspFlyweight reserved(long value) {
        LittleEndian.putU32(buffer, offset + RESERVED_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code recv_id}: the {@code recv_id} of the FETCH_RTA or COMPARE_RTA this answers.
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
    public AtomRspFlyweight recvId(long value) {
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
    public AtomRspFlyweight segLength(long value) {
        LittleEndian.putU64(buffer, offset + SEG_LENGTH_OFFSET, value);
        return this;
    }
}
