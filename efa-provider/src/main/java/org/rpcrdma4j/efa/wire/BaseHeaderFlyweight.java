package org.rpcrdma4j.efa.wire;

import java.nio.ByteBuffer;

/**
 * The 4-byte base header that starts every EFA RDM protocol v4 packet (protocol section 1.3, table
 * 1.3).
 *
 * <p>{@code type} is a {@link PacketType} id, {@code version} is {@link #PROTOCOL_VERSION} and {@code
 * flags} holds the universal flag {@link PacketFlags#CONNID_HDR_FLAG} plus flags each packet type
 * defines (see {@link PacketFlags}).
 *
 * <pre>
 *  0       1       2       3       4       5       6       7
 * +-------+-------+---------------+
 * |  type |version|     flags     |   0
 * +-------+-------+---------------+
 * </pre>
 *
 * Accessors trust the layout: run {@link PacketDecoder} on received bytes before wrapping them.
 */
public final class BaseHeaderFlyweight {

    /** Offset of {@code type} (u8). */
    public static final int TYPE_OFFSET = 0;

    /** Offset of {@code version} (u8). */
    public static final int VERSION_OFFSET = 1;

    /** Offset of {@code flags} (u16). */
    public static final int FLAGS_OFFSET = 2;

    /** Length of the header in bytes. */
    public static final int HEADER_LENGTH = 4;

    /** The only protocol version this codec speaks. */
    public static final int PROTOCOL_VERSION = 4;

    private ByteBuffer buffer;
    private int offset;

    /**
     * Points this flyweight at the first byte of the packet.
     *
     * @param buffer the buffer holding the bytes; its byte order does not matter, fields are little endian
     * @param offset the index of the first byte of the packet in {@code buffer}
     * @return this flyweight
     */
    public BaseHeaderFlyweight wrap(ByteBuffer buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /**
     * Returns {@code type}: the packet type id, see {@link PacketType#id()}.
     *
     * @return a u8 widened to an int
     */
    public int type() {
        return LittleEndian.getU8(buffer, offset + TYPE_OFFSET);
    }

    /**
     * Sets {@code type}.
     *
     * @param value the new value, in [0, 0xff]
     * @return this flyweight
     */
    public BaseHeaderFlyweight type(int value) {
        LittleEndian.putU8(buffer, offset + TYPE_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code version}: the protocol version; 4 for every packet of protocol v4.
     *
     * @return a u8 widened to an int
     */
    public int version() {
        return LittleEndian.getU8(buffer, offset + VERSION_OFFSET);
    }

    /**
     * Sets {@code version}.
     *
     * @param value the new value, in [0, 0xff]
     * @return this flyweight
     */
    public BaseHeaderFlyweight version(int value) {
        LittleEndian.putU8(buffer, offset + VERSION_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code flags}: the flags; their meaning depends on the packet type, see {@link PacketFlags}.
     *
     * @return a u16 widened to an int
     */
    public int flags() {
        return LittleEndian.getU16(buffer, offset + FLAGS_OFFSET);
    }

    /**
     * Sets {@code flags}.
     *
     * @param value the new value, in [0, 0xffff]
     * @return this flyweight
     */
    public BaseHeaderFlyweight flags(int value) {
        LittleEndian.putU16(buffer, offset + FLAGS_OFFSET, value);
        return this;
    }
}
