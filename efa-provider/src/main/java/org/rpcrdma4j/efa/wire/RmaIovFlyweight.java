package org.rpcrdma4j.efa.wire;

import java.nio.ByteBuffer;

/**
 * One {@code efa_rma_iov} (the same 24 bytes as {@code fi_rma_iov}): a remote memory region.
 *
 * <p>The {@code rma_iov} arrays of RTW, RTR and RTA headers and the {@code read_iov} arrays of long-read
 * and runting-read REQs are arrays of it (DISCREPANCIES.md E2: both structs are 24 bytes on the wire).
 *
 * <pre>
 *  0       1       2       3       4       5       6       7
 * +---------------------------------------------------------------+
 * |                              addr                             |   0
 * +---------------------------------------------------------------+
 * |                              len                              |   8
 * +---------------------------------------------------------------+
 * |                              key                              |  16
 * +---------------------------------------------------------------+
 * </pre>
 *
 * Accessors trust the layout: run {@link PacketDecoder} on received bytes before wrapping them.
 */
public final class RmaIovFlyweight {

    /** Offset of {@code addr} (u64). */
    public static final int ADDR_OFFSET = 0;

    /** Offset of {@code len} (u64). */
    public static final int LEN_OFFSET = 8;

    /** Offset of {@code key} (u64). */
    public static final int KEY_OFFSET = 16;

    /** Length of one entry in bytes. */
    public static final int LENGTH = 24;

    private ByteBuffer buffer;
    private int offset;

    /**
     * Points this flyweight at the first byte of the entry.
     *
     * @param buffer the buffer holding the bytes; its byte order does not matter, fields are little endian
     * @param offset the index of the first byte of the entry in {@code buffer}
     * @return this flyweight
     */
    public RmaIovFlyweight wrap(ByteBuffer buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /**
     * Returns {@code addr}: the virtual address of the remote region.
     *
     * @return a u64; compare it with {@link Long#compareUnsigned}
     */
    public long addr() {
        return LittleEndian.getU64(buffer, offset + ADDR_OFFSET);
    }

    /**
     * Sets {@code addr}.
     *
     * @param value the new value, any bit pattern
     * @return this flyweight
     */
    public RmaIovFlyweight addr(long value) {
        LittleEndian.putU64(buffer, offset + ADDR_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code len}: the length of the remote region in bytes.
     *
     * @return a u64; compare it with {@link Long#compareUnsigned}
     */
    public long len() {
        return LittleEndian.getU64(buffer, offset + LEN_OFFSET);
    }

    /**
     * Sets {@code len}.
     *
     * @param value the new value, any bit pattern
     * @return this flyweight
     */
    public RmaIovFlyweight len(long value) {
        LittleEndian.putU64(buffer, offset + LEN_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code key}: the remote key of the memory registration that covers the region.
     *
     * @return a u64; compare it with {@link Long#compareUnsigned}
     */
    public long key() {
        return LittleEndian.getU64(buffer, offset + KEY_OFFSET);
    }

    /**
     * Sets {@code key}.
     *
     * @param value the new value, any bit pattern
     * @return this flyweight
     */
    public RmaIovFlyweight key(long value) {
        LittleEndian.putU64(buffer, offset + KEY_OFFSET, value);
        return this;
    }
}
