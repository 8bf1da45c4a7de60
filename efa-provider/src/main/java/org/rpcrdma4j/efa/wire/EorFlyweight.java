package org.rpcrdma4j.efa.wire;

import java.nio.ByteBuffer;

/**
 * The EOR (end of read) header, packet type 7 (protocol section 4.1).
 *
 * <p>The receiver of a long-read message or write sends it once its RDMA read of the sender's buffer has
 * completed.
 *
 * <pre>
 *  0       1       2       3       4       5       6       7
 * +-------+-------+---------------+-------------------------------+
 * |  type |version|     flags     |            send_id            |   0
 * +-------------------------------+-------------------------------+
 * |            recv_id            |             connid            |   8
 * +-------------------------------+-------------------------------+
 * </pre>
 *
 * <p>The first four bytes are the base header, read and written through {@link BaseHeaderFlyweight}.
 * Accessors trust the layout: run {@link PacketDecoder} on received bytes before wrapping them.
 */
public final class EorFlyweight {

    /** Offset of {@code send_id} (u32). */
    public static final int SEND_ID_OFFSET = 4;

    /** Offset of {@code recv_id} (u32). */
    public static final int RECV_ID_OFFSET = 8;

    /** Offset of {@code connid} (u32). */
    public static final int CONNID_OFFSET = 12;

    /** Length of the header in bytes. */
    public static final int HEADER_LENGTH = 16;

    private ByteBuffer buffer;
    private int offset;

    /**
     * Points this flyweight at the first byte of the packet.
     *
     * @param buffer the buffer holding the bytes; its byte order does not matter, fields are little endian
     * @param offset the index of the first byte of the packet in {@code buffer}
     * @return this flyweight
     */
    public EorFlyweight wrap(ByteBuffer buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /**
     * Returns {@code send_id}: the {@code send_id} of the long-read REQ this answers.
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
    public EorFlyweight sendId(long value) {
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
    public EorFlyweight recvId(long value) {
        LittleEndian.putU32(buffer, offset + RECV_ID_OFFSET, value);
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
    public EorFlyweight connid(long value) {
        LittleEndian.putU32(buffer, offset + CONNID_OFFSET, value);
        return this;
    }
}
