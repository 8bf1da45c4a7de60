package org.rpcrdma4j.efa.wire;

import java.nio.ByteBuffer;

/**
 * The REQ optional headers, which follow the mandatory header in flag-bit order (protocol section 3.1):
 * raw address ({@code REQ_OPT_RAW_ADDR_HDR}), CQ data ({@code REQ_OPT_CQ_DATA_HDR}), connid
 * ({@code CONNID_HDR}). An absent header takes no space.
 *
 * <pre>
 * raw address: +---------------+--------------------------------+----------------------+
 *              | addr_len (u32)| efa_ep_addr (32 bytes)         | addr_len - 32 bytes  |
 *              +---------------+--------------------------------+----------------------+
 * CQ data:     +-------------------------------+
 *              | cq_data (u64)                 |
 *              +-------------------------------+
 * connid:      +---------------+
 *              | connid (u32)  |   no padding: what follows starts at 4 mod 8 (DISCREPANCIES.md B8)
 *              +---------------+
 * </pre>
 *
 * <p>The provider writes {@code addr_len = 36}: the 32-byte address and 4 bytes it leaves unwritten, 40
 * bytes in all, where the document says 32 (DISCREPANCIES.md A4). A receiver skips {@code 4 + addr_len}
 * bytes, as the provider does, so a 32-byte header from a sender that follows the document parses too.
 * The provider never sends the raw address and the connid together (DISCREPANCIES.md B8); both are still
 * parsed in the documented order.
 *
 * <p>The layout depends on the flags and on {@code addr_len}, so an encoder sets {@code addr_len} before
 * the headers after it. Accessors trust the layout: run {@link PacketDecoder} on received bytes first.
 */
public final class ReqOptionalHeadersFlyweight {

    /** Offset of {@code addr_len} (u32) within the raw-address header. */
    public static final int RAW_ADDR_LEN_OFFSET = 0;
    /** Offset of the raw address within the raw-address header. */
    public static final int RAW_ADDR_OFFSET = 4;
    /** The {@code addr_len} the provider writes: the raw address plus 4 unwritten bytes. */
    public static final int PROVIDER_RAW_ADDR_LEN = 36;
    /** Length of the raw-address header as the provider sends it. */
    public static final int PROVIDER_RAW_ADDR_HEADER_LENGTH = RAW_ADDR_OFFSET + PROVIDER_RAW_ADDR_LEN;
    /** Length of the CQ data header. */
    public static final int CQ_DATA_LENGTH = 8;
    /** Length of the connid header. */
    public static final int CONNID_LENGTH = 4;

    private ByteBuffer buffer;
    private int offset;
    private int flags;

    /**
     * Points this flyweight at the optional headers of a REQ packet.
     *
     * @param buffer the buffer holding the bytes; its byte order does not matter, fields are little endian
     * @param offset the index of the first optional header, right after the mandatory header
     * @param flags the base header's flags, which say which headers are present
     * @return this flyweight
     */
    public ReqOptionalHeadersFlyweight wrap(ByteBuffer buffer, int offset, int flags) {
        this.buffer = buffer;
        this.offset = offset;
        this.flags = flags;
        return this;
    }

    /**
     * Returns {@code addr_len}, the number of address bytes after it (flag {@code REQ_OPT_RAW_ADDR_HDR}).
     *
     * @return a u32 widened to a long
     */
    public long rawAddrLen() {
        return LittleEndian.getU32(buffer, offset + RAW_ADDR_LEN_OFFSET);
    }

    /**
     * Sets {@code addr_len}.
     *
     * @param value the number of address bytes, {@link #PROVIDER_RAW_ADDR_LEN} to match the provider
     * @return this flyweight
     */
    public ReqOptionalHeadersFlyweight rawAddrLen(long value) {
        LittleEndian.putU32(buffer, offset + RAW_ADDR_LEN_OFFSET, value);
        return this;
    }

    /**
     * Returns the index of the raw address, to wrap with {@link RawAddressFlyweight}.
     *
     * @return the index of the address in the buffer
     */
    public int rawAddressOffset() {
        return offset + RAW_ADDR_OFFSET;
    }

    /**
     * Returns the index of the CQ data header.
     *
     * @return the index right after the raw-address header, if any
     */
    public int cqDataOffset() {
        return (flags & PacketFlags.REQ_OPT_RAW_ADDR_HDR_FLAG) == 0 ? offset : rawAddressOffset() + (int) rawAddrLen();
    }

    /**
     * Returns {@code cq_data}: the remote CQ data the application sent with the message or write.
     *
     * @return a u64
     */
    public long cqData() {
        return LittleEndian.getU64(buffer, cqDataOffset());
    }

    /**
     * Sets {@code cq_data}.
     *
     * @param value any bit pattern
     * @return this flyweight
     */
    public ReqOptionalHeadersFlyweight cqData(long value) {
        LittleEndian.putU64(buffer, cqDataOffset(), value);
        return this;
    }

    /**
     * Returns the index of the connid header.
     *
     * @return the index right after the raw-address and CQ data headers, if any
     */
    public int connidOffset() {
        return cqDataOffset() + ((flags & PacketFlags.REQ_OPT_CQ_DATA_HDR_FLAG) == 0 ? 0 : CQ_DATA_LENGTH);
    }

    /**
     * Returns {@code connid}: the sender's connection id (protocol section 4.4).
     *
     * @return a u32 widened to a long
     */
    public long connid() {
        return LittleEndian.getU32(buffer, connidOffset());
    }

    /**
     * Sets {@code connid}.
     *
     * @param value the connection id, in [0, 0xffffffff]
     * @return this flyweight
     */
    public ReqOptionalHeadersFlyweight connid(long value) {
        LittleEndian.putU32(buffer, connidOffset(), value);
        return this;
    }

    /**
     * Returns the length of all optional headers present.
     *
     * @return the number of bytes from the first optional header to what follows the last
     */
    public int length() {
        return connidOffset() + ((flags & PacketFlags.CONNID_HDR_FLAG) == 0 ? 0 : CONNID_LENGTH) - offset;
    }
}
