package org.rpcrdma4j.efa.wire;

import java.nio.ByteBuffer;

/**
 * The 32-byte raw address of an EFA RDM endpoint, {@code efa_ep_addr} (protocol section 1.4, table 1.5),
 * as carried in the REQ raw-address optional header.
 *
 * <pre>
 *  0       1       2       3       4       5       6       7
 * +---------------------------------------------------------------+
 * |                     gid (16 bytes, IPv6 format)               |   0
 * +                                                               +
 * |                                                               |   8
 * +---------------+---------------+-------------------------------+
 * |      qpn      |      pad      |         qkey / connid         |  16
 * +---------------+---------------+-------------------------------+
 * |                      next / reserved                          |  24
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <p>The provider's names differ from the document's (DISCREPANCIES.md C): {@code qkey} is the document's
 * {@code connid}, the endpoint's random connection id, and {@code next} is an in-memory pointer the
 * provider copies verbatim (zero in practice); receivers ignore {@code pad} and {@code next}.
 */
public final class RawAddressFlyweight {

    /** Offset of {@code gid}, 16 bytes. */
    public static final int GID_OFFSET = 0;
    /** Length of {@code gid}. */
    public static final int GID_LENGTH = 16;
    /** Offset of {@code qpn} (u16). */
    public static final int QPN_OFFSET = 16;
    /** Offset of {@code pad} (u16). */
    public static final int PAD_OFFSET = 18;
    /** Offset of {@code qkey} (u32). */
    public static final int QKEY_OFFSET = 20;
    /** Offset of {@code next} (u64). */
    public static final int NEXT_OFFSET = 24;
    /** Length of the raw address. */
    public static final int LENGTH = 32;

    private ByteBuffer buffer;
    private int offset;

    /**
     * Points this flyweight at a raw address.
     *
     * @param buffer the buffer holding the bytes; its byte order does not matter, fields are little endian
     * @param offset the index of the address's first byte in {@code buffer}
     * @return this flyweight
     */
    public RawAddressFlyweight wrap(ByteBuffer buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /**
     * Copies {@code gid}, the device GID, in network order as an IPv6 address.
     *
     * @param dst receives the 16 bytes
     */
    public void getGid(byte[] dst) {
        buffer.get(offset + GID_OFFSET, dst, 0, GID_LENGTH);
    }

    /**
     * Sets {@code gid}.
     *
     * @param src the 16 bytes of the GID
     * @return this flyweight
     */
    public RawAddressFlyweight gid(byte[] src) {
        if (src.length != GID_LENGTH) {
            throw new IllegalArgumentException("a gid has 16 bytes, not " + src.length);
        }
        buffer.put(offset + GID_OFFSET, src);
        return this;
    }

    /**
     * Returns {@code qpn}: the queue pair number.
     *
     * @return a u16 widened to an int
     */
    public int qpn() {
        return LittleEndian.getU16(buffer, offset + QPN_OFFSET);
    }

    /**
     * Sets {@code qpn}.
     *
     * @param value the queue pair number, in [0, 0xffff]
     * @return this flyweight
     */
    public RawAddressFlyweight qpn(int value) {
        LittleEndian.putU16(buffer, offset + QPN_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code pad}: unused; receivers ignore it.
     *
     * @return a u16 widened to an int
     */
    public int pad() {
        return LittleEndian.getU16(buffer, offset + PAD_OFFSET);
    }

    /**
     * Sets {@code pad}.
     *
     * @param value the value, in [0, 0xffff]
     * @return this flyweight
     */
    public RawAddressFlyweight pad(int value) {
        LittleEndian.putU16(buffer, offset + PAD_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code qkey}: the endpoint's connection id (the document's {@code connid}).
     *
     * @return a u32 widened to a long
     */
    public long qkey() {
        return LittleEndian.getU32(buffer, offset + QKEY_OFFSET);
    }

    /**
     * Sets {@code qkey}.
     *
     * @param value the connection id, in [0, 0xffffffff]
     * @return this flyweight
     */
    public RawAddressFlyweight qkey(long value) {
        LittleEndian.putU32(buffer, offset + QKEY_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code next}: the provider's in-memory pointer, copied onto the wire; receivers ignore it.
     *
     * @return a u64
     */
    public long next() {
        return LittleEndian.getU64(buffer, offset + NEXT_OFFSET);
    }

    /**
     * Sets {@code next}.
     *
     * @param value any bit pattern; 0 is what the provider sends in practice
     * @return this flyweight
     */
    public RawAddressFlyweight next(long value) {
        LittleEndian.putU64(buffer, offset + NEXT_OFFSET, value);
        return this;
    }
}
