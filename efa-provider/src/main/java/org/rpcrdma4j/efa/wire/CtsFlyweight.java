package org.rpcrdma4j.efa.wire;

import java.nio.ByteBuffer;

/**
 * The CTS (clear to send) header, packet type 3 (protocol section 3.2, table 3.6).
 *
 * <p>A receiver of a long-CTS message, write or read sends it to grant the sender {@code recv_length}
 * more bytes. The flag {@link PacketFlags#CTS_READ_REQ_FLAG} (the document's {@code
 * CTS_EMULATED_READ}) marks a CTS of the emulated long-CTS read.
 *
 * <pre>
 *  0       1       2       3       4       5       6       7
 * +-------+-------+---------------+-------------------------------+
 * |  type |version|     flags     |             connid            |   0
 * +-------------------------------+-------------------------------+
 * |            send_id            |            recv_id            |   8
 * +---------------------------------------------------------------+
 * |                          recv_length                          |  16
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <p>The first four bytes are the base header, read and written through {@link BaseHeaderFlyweight}.
 * Accessors trust the layout: run {@link PacketDecoder} on received bytes before wrapping them.
 */
public final class CtsFlyweight {

    /** Offset of {@code connid} (u32). */
    public static final int CONNID_OFFSET = 4;

    /** Offset of {@code send_id} (u32). */
    public static final int SEND_ID_OFFSET = 8;

    /** Offset of {@code recv_id} (u32). */
    public static final int RECV_ID_OFFSET = 12;

    /** Offset of {@code recv_length} (u64). */
    public static final int RECV_LENGTH_OFFSET = 16;

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
    public CtsFlyweight wrap(ByteBuffer buffer, int offset) {
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
    public CtsFlyweight connid(long value) {
        LittleEndian.putU32(buffer, offset + CONNID_OFFSET, value);
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
    public CtsFlyweight sendId(long value) {
        LittleEndian.putU32(buffer, offset + SEND_ID_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code recv_id}: the receiver's RX operation id, which the sender echoes back.
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
    public CtsFlyweight recvId(long value) {
        LittleEndian.putU32(buffer, offset + RECV_ID_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code recv_length}: the number of bytes the receiver is ready to receive; it must be above
     * zero (protocol section 3.2) or the transfer cannot progress.
     *
     * @return a u64; compare it with {@link Long#compareUnsigned}
     */
    public long recvLength() {
        return LittleEndian.getU64(buffer, offset + RECV_LENGTH_OFFSET);
    }

    /**
     * Sets {@code recv_length}.
     *
     * @param value the new value, any bit pattern
     * @return this flyweight
     */
    public CtsFlyweight recvLength(long value) {
        LittleEndian.putU64(buffer, offset + RECV_LENGTH_OFFSET, value);
        return this;
    }
}
