package org.rpcrdma4j.efa.wire;

import java.nio.ByteBuffer;

/**
 * The HANDSHAKE packet, type 9 (protocol section 2.1, tables 2.2 and 2.3; DISCREPANCIES.md B4).
 *
 * <pre>
 *  0       1       2       3       4       5       6       7
 * +-------+-------+---------------+-------------------------------+
 * |  type |version|     flags     |           nextra_p3           |   0
 * +-------+-------+---------------+-------------------------------+
 * |                  extra_info[0 .. nextra_p3 - 4]               |   8
 * +---------------------------------------------------------------+
 * then the optional headers, 8 bytes each, in this fixed order; an absent one takes no space:
 * +-------------------------------+-------------------------------+
 * |            connid             |            padding            |  CONNID_HDR
 * +-------------------------------+-------------------------------+
 * |                            host_id                            |  HANDSHAKE_HOST_ID_HDR
 * +-------------------------------+-------------------------------+
 * |        device_version         |           reserved            |  HANDSHAKE_DEVICE_VERSION_HDR
 * +-------------------------------+-------------------------------+
 * |       user_recv_qp qpn        |       user_recv_qp qkey       |  HANDSHAKE_USER_RECV_QP_HDR
 * +-------+-------------------------------------------------------+
 * |  p2p  |                    reserved                           |  HANDSHAKE_HMEM_P2P_HDR
 * +-------+-------------------------------------------------------+
 * </pre>
 *
 * <p>{@code extra_info} holds {@code nextra_p3 - 3} words of 64 bits (the document's "flags" is wrong,
 * DISCREPANCIES.md D7), the bits of the {@link ExtraFeature}s the sender has. The optional headers are
 * located from {@code nextra_p3} and the flags, so an encoder sets {@code flags} (through
 * {@link BaseHeaderFlyweight}) and {@code nextra_p3} before any optional header. Accessors trust the
 * layout: run {@link PacketDecoder} on received bytes before wrapping them.
 */
public final class HandshakeFlyweight {

    /** Offset of {@code nextra_p3} (u32). */
    public static final int NEXTRA_P3_OFFSET = 4;
    /** Offset of {@code extra_info[0]} (u64 words). */
    public static final int EXTRA_INFO_OFFSET = 8;
    /** Length of the fixed part, before {@code extra_info}. */
    public static final int HEADER_LENGTH = 8;
    /** Length of one {@code extra_info} word. */
    public static final int EXTRA_INFO_WORD_LENGTH = 8;
    /** Length of every optional header. */
    public static final int OPTIONAL_HEADER_LENGTH = 8;
    /** The smallest valid {@code nextra_p3}: the "plus 3" of protocol section 2.1, for no {@code extra_info}. */
    public static final int MIN_NEXTRA_P3 = 3;
    /** Offset of {@code qkey} within the user receive QP optional header. */
    public static final int USER_RECV_QP_QKEY_OFFSET = 4;

    /** The optional header flags in their wire order (DISCREPANCIES.md B4). */
    private static final int[] OPTIONAL_HEADER_ORDER = {
        PacketFlags.CONNID_HDR_FLAG,
        PacketFlags.HANDSHAKE_HOST_ID_HDR_FLAG,
        PacketFlags.HANDSHAKE_DEVICE_VERSION_HDR_FLAG,
        PacketFlags.HANDSHAKE_USER_RECV_QP_HDR_FLAG,
        PacketFlags.HANDSHAKE_HMEM_P2P_HDR_FLAG,
    };

    private ByteBuffer buffer;
    private int offset;

    /**
     * Returns how many bytes the optional headers that {@code flags} announces take.
     *
     * @param flags the base header's flags; bits that announce no known header are ignored
     * @return 8 bytes per announced header
     */
    public static int optionalHeadersLength(int flags) {
        int length = 0;
        for (int flag : OPTIONAL_HEADER_ORDER) {
            if ((flags & flag) != 0) {
                length += OPTIONAL_HEADER_LENGTH;
            }
        }
        return length;
    }

    /**
     * Points this flyweight at the first byte of a HANDSHAKE packet.
     *
     * @param buffer the buffer holding the bytes; its byte order does not matter, fields are little endian
     * @param offset the index of the first byte of the packet in {@code buffer}
     * @return this flyweight
     */
    public HandshakeFlyweight wrap(ByteBuffer buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /**
     * Returns {@code nextra_p3}: the number of {@code extra_info} words plus 3.
     *
     * @return a u32 widened to a long
     */
    public long nextraP3() {
        return LittleEndian.getU32(buffer, offset + NEXTRA_P3_OFFSET);
    }

    /**
     * Sets {@code nextra_p3}.
     *
     * @param value the number of {@code extra_info} words plus 3, in [3, 0xffffffff]
     * @return this flyweight
     */
    public HandshakeFlyweight nextraP3(long value) {
        LittleEndian.putU32(buffer, offset + NEXTRA_P3_OFFSET, value);
        return this;
    }

    /**
     * Returns the number of {@code extra_info} words.
     *
     * @return {@code nextra_p3 - 3}
     */
    public int extraInfoCount() {
        return Math.toIntExact(nextraP3() - MIN_NEXTRA_P3);
    }

    /**
     * Returns word {@code index} of {@code extra_info}.
     *
     * @param index the word, below {@link #extraInfoCount()}
     * @return the 64 feature bits of that word
     */
    public long extraInfo(int index) {
        return LittleEndian.getU64(buffer, offset + EXTRA_INFO_OFFSET + index * EXTRA_INFO_WORD_LENGTH);
    }

    /**
     * Sets word {@code index} of {@code extra_info}.
     *
     * @param index the word, below {@link #extraInfoCount()}
     * @param value the 64 feature bits of that word
     * @return this flyweight
     */
    public HandshakeFlyweight extraInfo(int index, long value) {
        LittleEndian.putU64(buffer, offset + EXTRA_INFO_OFFSET + index * EXTRA_INFO_WORD_LENGTH, value);
        return this;
    }

    /**
     * Tells whether the sender advertises a feature; a word beyond {@code extra_info} counts as all zeros.
     *
     * @param feature the extra feature or request
     * @return true if its bit is set
     */
    public boolean hasExtraFeature(ExtraFeature feature) {
        return feature.wordIndex() < extraInfoCount() && (extraInfo(feature.wordIndex()) & feature.mask()) != 0;
    }

    /**
     * Returns the index of an optional header, counting only the headers {@code flags} announces before it.
     *
     * @param flag the optional header's flag, one of the five in the class comment
     * @return the index of the header in the buffer
     * @throws IllegalStateException if the base header's flags do not announce that header
     */
    public int optionalHeaderOffset(int flag) {
        int flags = LittleEndian.getU16(buffer, offset + BaseHeaderFlyweight.FLAGS_OFFSET);
        if ((flags & flag) == 0) {
            throw new IllegalStateException("HANDSHAKE flags 0x" + Integer.toHexString(flags)
                    + " do not announce the optional header 0x" + Integer.toHexString(flag));
        }
        int at = offset + EXTRA_INFO_OFFSET + extraInfoCount() * EXTRA_INFO_WORD_LENGTH;
        for (int candidate : OPTIONAL_HEADER_ORDER) {
            if (candidate == flag) {
                return at;
            }
            if ((flags & candidate) != 0) {
                at += OPTIONAL_HEADER_LENGTH;
            }
        }
        throw new IllegalArgumentException("0x" + Integer.toHexString(flag) + " is no HANDSHAKE optional header flag");
    }

    /**
     * Returns {@code connid}: the sender's connection id (flag {@code CONNID_HDR}).
     *
     * @return a u32 widened to a long
     */
    public long connid() {
        return LittleEndian.getU32(buffer, optionalHeaderOffset(PacketFlags.CONNID_HDR_FLAG));
    }

    /**
     * Sets {@code connid}; the 4 bytes after it are left as they are.
     *
     * @param value the connection id, in [0, 0xffffffff]
     * @return this flyweight
     */
    public HandshakeFlyweight connid(long value) {
        LittleEndian.putU32(buffer, optionalHeaderOffset(PacketFlags.CONNID_HDR_FLAG), value);
        return this;
    }

    /**
     * Returns {@code host_id}: the sender's host identifier (flag {@code HANDSHAKE_HOST_ID_HDR}).
     *
     * @return a u64
     */
    public long hostId() {
        return LittleEndian.getU64(buffer, optionalHeaderOffset(PacketFlags.HANDSHAKE_HOST_ID_HDR_FLAG));
    }

    /**
     * Sets {@code host_id}.
     *
     * @param value the host identifier, any bit pattern
     * @return this flyweight
     */
    public HandshakeFlyweight hostId(long value) {
        LittleEndian.putU64(buffer, optionalHeaderOffset(PacketFlags.HANDSHAKE_HOST_ID_HDR_FLAG), value);
        return this;
    }

    /**
     * Returns {@code device_version}: the version of the sender's EFA device (flag
     * {@code HANDSHAKE_DEVICE_VERSION_HDR}).
     *
     * @return a u32 widened to a long
     */
    public long deviceVersion() {
        return LittleEndian.getU32(buffer, optionalHeaderOffset(PacketFlags.HANDSHAKE_DEVICE_VERSION_HDR_FLAG));
    }

    /**
     * Sets {@code device_version}; the 4 reserved bytes after it are left as they are.
     *
     * @param value the device version, in [0, 0xffffffff]
     * @return this flyweight
     */
    public HandshakeFlyweight deviceVersion(long value) {
        LittleEndian.putU32(buffer, optionalHeaderOffset(PacketFlags.HANDSHAKE_DEVICE_VERSION_HDR_FLAG), value);
        return this;
    }

    /**
     * Returns the {@code qpn} of the user receive QP header (flag {@code HANDSHAKE_USER_RECV_QP_HDR}).
     *
     * @return a u32 widened to a long
     */
    public long userRecvQpQpn() {
        return LittleEndian.getU32(buffer, optionalHeaderOffset(PacketFlags.HANDSHAKE_USER_RECV_QP_HDR_FLAG));
    }

    /**
     * Sets the {@code qpn} of the user receive QP header.
     *
     * @param value the QP number, in [0, 0xffffffff]
     * @return this flyweight
     */
    public HandshakeFlyweight userRecvQpQpn(long value) {
        LittleEndian.putU32(buffer, optionalHeaderOffset(PacketFlags.HANDSHAKE_USER_RECV_QP_HDR_FLAG), value);
        return this;
    }

    /**
     * Returns the {@code qkey} of the user receive QP header (flag {@code HANDSHAKE_USER_RECV_QP_HDR}).
     *
     * @return a u32 widened to a long
     */
    public long userRecvQpQkey() {
        return LittleEndian.getU32(buffer,
                optionalHeaderOffset(PacketFlags.HANDSHAKE_USER_RECV_QP_HDR_FLAG) + USER_RECV_QP_QKEY_OFFSET);
    }

    /**
     * Sets the {@code qkey} of the user receive QP header.
     *
     * @param value the Q-Key, in [0, 0xffffffff]
     * @return this flyweight
     */
    public HandshakeFlyweight userRecvQpQkey(long value) {
        LittleEndian.putU32(buffer,
                optionalHeaderOffset(PacketFlags.HANDSHAKE_USER_RECV_QP_HDR_FLAG) + USER_RECV_QP_QKEY_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code p2p_supported} of the HMEM header (flag {@code HANDSHAKE_HMEM_P2P_HDR}).
     *
     * @return a u8 widened to an int; non-zero if the sender supports peer-to-peer HMEM transfers
     */
    public int hmemP2pSupported() {
        return LittleEndian.getU8(buffer, optionalHeaderOffset(PacketFlags.HANDSHAKE_HMEM_P2P_HDR_FLAG));
    }

    /**
     * Sets {@code p2p_supported} of the HMEM header; the 7 reserved bytes after it are left as they are.
     *
     * @param value the value, in [0, 0xff]
     * @return this flyweight
     */
    public HandshakeFlyweight hmemP2pSupported(int value) {
        LittleEndian.putU8(buffer, optionalHeaderOffset(PacketFlags.HANDSHAKE_HMEM_P2P_HDR_FLAG), value);
        return this;
    }
}
