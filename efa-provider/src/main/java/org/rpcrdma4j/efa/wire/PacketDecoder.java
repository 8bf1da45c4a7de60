package org.rpcrdma4j.efa.wire;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * Validates a received packet as a whole and tells where its parts are, or says which rule it broke.
 *
 * <p>The checks, in order: the base header fits and its {@code version} is 4; the {@code type} is a
 * protocol v4 type that is not retired; the type's mandatory header fits; then, per type, every count is
 * checked against {@link WireLimits} before it is used and every array and optional header against the
 * bytes received. Nothing is read outside {@code [offset, offset + length)} and nothing is allocated
 * but the result. Flag bits a type does not define are ignored, as the provider does.
 *
 * <p>Instances hold only their limits and may be shared between threads.
 */
public final class PacketDecoder {

    private final WireLimits limits;

    /** Creates a decoder with {@link WireLimits#DEFAULT}. */
    public PacketDecoder() {
        this(WireLimits.DEFAULT);
    }

    /**
     * Creates a decoder.
     *
     * @param limits the limits on declared counts
     */
    public PacketDecoder(WireLimits limits) {
        this.limits = Objects.requireNonNull(limits, "limits");
    }

    /**
     * Validates the packet in {@code buffer[offset, offset + length)}.
     *
     * @param buffer the buffer holding the packet; its position, limit and byte order are not changed
     * @param offset the index of the packet's first byte
     * @param length the number of bytes received
     * @return where the headers, the {@code read_iov} entries and the payload lie
     * @throws PacketDecodeException if the packet breaks a rule; {@link PacketDecodeException#error()} says which
     * @throws IndexOutOfBoundsException if the range lies outside the buffer's limit
     */
    public DecodedPacket decode(ByteBuffer buffer, int offset, int length) throws PacketDecodeException {
        Objects.checkFromIndexSize(offset, length, buffer.limit());
        if (length < BaseHeaderFlyweight.HEADER_LENGTH) {
            throw new PacketDecodeException(DecodeError.TRUNCATED,
                    "packet of " + length + " bytes is shorter than the 4-byte base header");
        }
        // Section 1.3: the version byte is 4 for every packet of protocol v4.
        int version = LittleEndian.getU8(buffer, offset + BaseHeaderFlyweight.VERSION_OFFSET);
        if (version != BaseHeaderFlyweight.PROTOCOL_VERSION) {
            throw new PacketDecodeException(DecodeError.BAD_VERSION,
                    "version " + version + " is not protocol version " + BaseHeaderFlyweight.PROTOCOL_VERSION);
        }
        int typeId = LittleEndian.getU8(buffer, offset + BaseHeaderFlyweight.TYPE_OFFSET);
        PacketType type = PacketType.fromId(typeId);
        if (type == null) {
            throw new PacketDecodeException(DecodeError.UNKNOWN_TYPE, "packet type " + typeId + " is not defined by protocol v4");
        }
        if (type.isRetired()) {
            throw new PacketDecodeException(DecodeError.RETIRED_TYPE, "packet type " + typeId + " (" + type + ") is retired");
        }
        int flags = LittleEndian.getU16(buffer, offset + BaseHeaderFlyweight.FLAGS_OFFSET);
        require(type, type.mandatoryHeaderLength(), length, "its mandatory header");
        if (type.isReq()) {
            return decodeReq(buffer, offset, length, type, flags);
        }
        return switch (type) {
            case HANDSHAKE -> decodeHandshake(buffer, offset, length, flags);
            case CTS -> decodeCts(buffer, offset, length, flags);
            case CTSDATA -> {
                // Section 3.2 table 3.7: with CONNID_HDR an 8-byte connid trailer follows the header.
                int header = CtsDataFlyweight.HEADER_LENGTH
                        + ((flags & PacketFlags.CONNID_HDR_FLAG) == 0 ? 0 : CtsDataFlyweight.CONNID_HEADER_LENGTH);
                require(type, header, length, "its connid trailer");
                yield withSegment(buffer, offset, length, type, flags, header, CtsDataFlyweight.SEG_LENGTH_OFFSET);
            }
            case READRSP -> withSegment(buffer, offset, length, type, flags, ReadRspFlyweight.HEADER_LENGTH,
                    ReadRspFlyweight.SEG_LENGTH_OFFSET);
            case ATOMRSP -> withSegment(buffer, offset, length, type, flags, AtomRspFlyweight.HEADER_LENGTH,
                    AtomRspFlyweight.SEG_LENGTH_OFFSET);
            default -> fixed(offset, length, type, flags, type.mandatoryHeaderLength());
        };
    }

    private DecodedPacket decodeHandshake(ByteBuffer buffer, int offset, int length, int flags)
            throws PacketDecodeException {
        // Section 2.1: extra_info holds nextra_p3 - 3 words, so a value below 3 has no meaning.
        long nextraP3 = LittleEndian.getU32(buffer, offset + HandshakeFlyweight.NEXTRA_P3_OFFSET);
        if (nextraP3 < HandshakeFlyweight.MIN_NEXTRA_P3) {
            throw new PacketDecodeException(DecodeError.NEXTRA_P3,
                    "nextra_p3 " + nextraP3 + " is below the minimum " + HandshakeFlyweight.MIN_NEXTRA_P3);
        }
        if (nextraP3 > limits.maxNextraP3()) {
            throw new PacketDecodeException(DecodeError.NEXTRA_P3,
                    "nextra_p3 " + nextraP3 + " exceeds the limit " + limits.maxNextraP3());
        }
        long mandatory = HandshakeFlyweight.EXTRA_INFO_OFFSET
                + (nextraP3 - HandshakeFlyweight.MIN_NEXTRA_P3) * HandshakeFlyweight.EXTRA_INFO_WORD_LENGTH;
        require(PacketType.HANDSHAKE, mandatory, length, "extra_info[" + (nextraP3 - HandshakeFlyweight.MIN_NEXTRA_P3) + "]");
        // Section 2.1.1 and DISCREPANCIES.md B4: each optional header the flags announce takes 8 bytes.
        long header = mandatory + HandshakeFlyweight.optionalHeadersLength(flags);
        require(PacketType.HANDSHAKE, header, length, "its optional headers");
        return new DecodedPacket(PacketType.HANDSHAKE, flags, offset, (int) mandatory, (int) header, 0,
                length - (int) header);
    }

    private static DecodedPacket decodeCts(ByteBuffer buffer, int offset, int length, int flags)
            throws PacketDecodeException {
        // Section 3.2: a CTS must grant some bytes, or the long-CTS protocol loops forever.
        if (LittleEndian.getU64(buffer, offset + CtsFlyweight.RECV_LENGTH_OFFSET) == 0) {
            throw new PacketDecodeException(DecodeError.CTS_RECV_LENGTH, "CTS recv_length 0 is below the minimum 1");
        }
        return fixed(offset, length, PacketType.CTS, flags, CtsFlyweight.HEADER_LENGTH);
    }

    private static DecodedPacket withSegment(ByteBuffer buffer, int offset, int length, PacketType type, int flags,
                                             int header, int segLengthOffset) throws PacketDecodeException {
        // The receiver copies seg_length bytes out of the packet, so they must all be there.
        long segLength = LittleEndian.getU64(buffer, offset + segLengthOffset);
        int payload = length - header;
        if (Long.compareUnsigned(segLength, payload) > 0) {
            throw new PacketDecodeException(DecodeError.SEG_LENGTH, type + " seg_length " + Long.toUnsignedString(segLength)
                    + " exceeds the " + payload + " data bytes in the packet");
        }
        return fixed(offset, length, type, flags, header);
    }

    private static DecodedPacket fixed(int offset, int length, PacketType type, int flags, int header) {
        return new DecodedPacket(type, flags, offset, header, header, 0, length - header);
    }

    private DecodedPacket decodeReq(ByteBuffer buffer, int offset, int length, PacketType type, int flags)
            throws PacketDecodeException {
        long at = type.mandatoryHeaderLength();
        if (type.hasRmaIov()) {
            // Section 3.3: the rma_iov entries are part of the mandatory header of RTW, RTR and RTA.
            long count = LittleEndian.getU32(buffer, offset + rmaIovCountOffset(type));
            checkCount(type, "rma_iov_count", count, limits.maxRmaIovCount());
            at += count * RmaIovFlyweight.LENGTH;
            require(type, at, length, count + " rma_iov entries");
        }
        long mandatory = at;
        // Section 3.1: the optional headers follow in the order of their flag bits.
        if ((flags & PacketFlags.REQ_OPT_RAW_ADDR_HDR_FLAG) != 0) {
            require(type, at + ReqOptionalHeadersFlyweight.RAW_ADDR_OFFSET, length, "the raw address addr_len");
            long addrLen = LittleEndian.getU32(buffer, offset + (int) at + ReqOptionalHeadersFlyweight.RAW_ADDR_LEN_OFFSET);
            // Section 1.4: the address is 32 bytes; the provider declares 36 (DISCREPANCIES.md A4).
            if (addrLen < RawAddressFlyweight.LENGTH) {
                throw new PacketDecodeException(DecodeError.RAW_ADDR_LENGTH,
                        "raw address addr_len " + addrLen + " is below the minimum " + RawAddressFlyweight.LENGTH);
            }
            at += ReqOptionalHeadersFlyweight.RAW_ADDR_OFFSET + addrLen;
            require(type, at, length, "the raw address of addr_len " + addrLen);
        }
        if ((flags & PacketFlags.REQ_OPT_CQ_DATA_HDR_FLAG) != 0) {
            at += ReqOptionalHeadersFlyweight.CQ_DATA_LENGTH;
            require(type, at, length, "the CQ data header");
        }
        if ((flags & PacketFlags.CONNID_HDR_FLAG) != 0) {
            at += ReqOptionalHeadersFlyweight.CONNID_LENGTH;
            require(type, at, length, "the connid header");
        }
        long header = at;
        long readIovCount = 0;
        if (type.hasReadIov()) {
            // Sections 4.1 and 4.5: the read_iov entries follow the optional headers.
            readIovCount = LittleEndian.getU32(buffer, offset + readIovCountOffset(type));
            checkCount(type, "read_iov_count", readIovCount, limits.maxReadIovCount());
            at += readIovCount * RmaIovFlyweight.LENGTH;
            require(type, at, length, readIovCount + " read_iov entries");
        }
        return new DecodedPacket(type, flags, offset, (int) mandatory, (int) header, (int) readIovCount,
                length - (int) at);
    }

    private static int rmaIovCountOffset(PacketType type) {
        return switch (type) {
            case EAGER_RTW -> EagerRtwFlyweight.RMA_IOV_COUNT_OFFSET;
            case DC_EAGER_RTW -> DcEagerRtwFlyweight.RMA_IOV_COUNT_OFFSET;
            case LONGCTS_RTW, DC_LONGCTS_RTW -> LongCtsRtwFlyweight.RMA_IOV_COUNT_OFFSET;
            case LONGREAD_RTW -> LongReadRtwFlyweight.RMA_IOV_COUNT_OFFSET;
            case SHORT_RTR, LONGCTS_RTR -> RtrFlyweight.RMA_IOV_COUNT_OFFSET;
            case WRITE_RTA, FETCH_RTA, COMPARE_RTA, DC_WRITE_RTA -> RtaFlyweight.RMA_IOV_COUNT_OFFSET;
            default -> throw new IllegalArgumentException(type + " has no rma_iov array");
        };
    }

    private static int readIovCountOffset(PacketType type) {
        return switch (type) {
            case LONGREAD_MSGRTM, LONGREAD_TAGRTM -> LongReadRtmFlyweight.READ_IOV_COUNT_OFFSET;
            case LONGREAD_RTW -> LongReadRtwFlyweight.READ_IOV_COUNT_OFFSET;
            case RUNTREAD_MSGRTM, RUNTREAD_TAGRTM -> RuntReadRtmFlyweight.READ_IOV_COUNT_OFFSET;
            case RUNTREAD_RTW -> RuntReadRtwFlyweight.READ_IOV_COUNT_OFFSET;
            default -> throw new IllegalArgumentException(type + " has no read_iov array");
        };
    }

    private static void checkCount(PacketType type, String field, long count, int limit) throws PacketDecodeException {
        if (count > limit) {
            throw new PacketDecodeException(DecodeError.IOV_COUNT,
                    type + " " + field + " " + count + " exceeds the limit " + limit);
        }
    }

    private static void require(PacketType type, long needed, int length, String what) throws PacketDecodeException {
        if (needed > length) {
            throw new PacketDecodeException(DecodeError.TRUNCATED,
                    type + " of " + length + " bytes is too short for " + what + ": it needs " + needed);
        }
    }
}
