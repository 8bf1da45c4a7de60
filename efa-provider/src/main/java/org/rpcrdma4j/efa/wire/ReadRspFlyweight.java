package org.rpcrdma4j.efa.wire;

import java.nio.ByteBuffer;

/**
 * The READRSP (read response) header, packet type 5 (protocol section 3.3, table 3.11).
 *
 * <p>The responder of an emulated read sends the requested data after this header. The provider puts
 * {@code recv_id} at offset 8 and {@code send_id} at offset 12, the reverse of the document's table
 * (DISCREPANCIES.md A1): {@code recv_id} is the requester's id taken from its RTR, {@code send_id} the
 * responder's own. Offset 16 is {@code seg_length}, the document's {@code recv_length}.
 *
 * <pre>
 *  0       1       2       3       4       5       6       7
 * +-------+-------+---------------+-------------------------------+
 * |  type |version|     flags     |             connid            |   0
 * +-------------------------------+-------------------------------+
 * |            recv_id            |            send_id            |   8
 * +---------------------------------------------------------------+
 * |                           seg_length                          |  16
 * +---------------------------------------------------------------+
 * (followed by seg_length bytes of data)
 * </pre>
 *
 * <p>The first four bytes are the base header, read and written through {@link BaseHeaderFlyweight}.
 * Accessors trust the layout: run {@link PacketDecoder} on received bytes before wrapping them.
 */
public final class ReadRspFlyweight {

    /** Offset of {@code connid} (u32). */
    public static final int CONNID_OFFSET = 4;

    /** Offset of {@code recv_id} (u32). */
    public static final int RECV_ID_OFFSET = 8;

    /** Offset of {@code send_id} (u32). */
    public static final int SEND_ID_OFFSET = 12;

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
    public ReadRspFlyweight wrap(ByteBuffer buffer, int offset) {
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
    public ReadRspFlyweight connid(long value) {
        LittleEndian.putU32(buffer, offset + CONNID_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code recv_id}: the requester's operation id, copied from the RTR's {@code recv_id}.
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
    public ReadRspFlyweight recvId(long value) {
        LittleEndian.putU32(buffer, offset + RECV_ID_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code send_id}: the responder's own RX operation id.
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
    public ReadRspFlyweight sendId(long value) {
        LittleEndian.putU32(buffer, offset + SEND_ID_OFFSET, value);
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
    public ReadRspFlyweight segLength(long value) {
        LittleEndian.putU64(buffer, offset + SEG_LENGTH_OFFSET, value);
        return this;
    }
}
