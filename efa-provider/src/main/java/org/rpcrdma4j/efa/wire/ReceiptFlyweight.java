package org.rpcrdma4j.efa.wire;

import java.nio.ByteBuffer;

/**
 * The RECEIPT header, packet type 10 (protocol section 4.2).
 *
 * <p>The receiver of a delivery-complete (DC) RTM or RTW sends it once the data has been delivered. The
 * provider names the first field {@code tx_id}; the document calls it {@code send_id}
 * (DISCREPANCIES.md C).
 *
 * <pre>
 *  0       1       2       3       4       5       6       7
 * +-------+-------+---------------+-------------------------------+
 * |  type |version|     flags     |             tx_id             |   0
 * +-------------------------------+-------------------------------+
 * |             msg_id            |             connid            |   8
 * +-------------------------------+-------------------------------+
 * </pre>
 *
 * <p>The first four bytes are the base header, read and written through {@link BaseHeaderFlyweight}.
 * Accessors trust the layout: run {@link PacketDecoder} on received bytes before wrapping them.
 */
public final class ReceiptFlyweight {

    /** Offset of {@code tx_id} (u32). */
    public static final int TX_ID_OFFSET = 4;

    /** Offset of {@code msg_id} (u32). */
    public static final int MSG_ID_OFFSET = 8;

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
    public ReceiptFlyweight wrap(ByteBuffer buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /**
     * Returns {@code tx_id}: the TX operation id of the sender of the message being acknowledged (the
     * document calls it {@code send_id}).
     *
     * @return a u32 widened to a long
     */
    public long txId() {
        return LittleEndian.getU32(buffer, offset + TX_ID_OFFSET);
    }

    /**
     * Sets {@code tx_id}.
     *
     * @param value the new value, in [0, 0xffffffff]
     * @return this flyweight
     */
    public ReceiptFlyweight txId(long value) {
        LittleEndian.putU32(buffer, offset + TX_ID_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code msg_id}: the {@code msg_id} of the message being acknowledged.
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
    public ReceiptFlyweight msgId(long value) {
        LittleEndian.putU32(buffer, offset + MSG_ID_OFFSET, value);
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
    public ReceiptFlyweight connid(long value) {
        LittleEndian.putU32(buffer, offset + CONNID_OFFSET, value);
        return this;
    }
}
