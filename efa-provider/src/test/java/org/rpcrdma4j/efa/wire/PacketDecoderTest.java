package org.rpcrdma4j.efa.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** One test per decoding rule; each asserts the rule's error and that decoding recovers afterwards. */
class PacketDecoderTest {

    private final PacketDecoder decoder = new PacketDecoder();

    /** The golden packet {@code name}, changed by {@code change}. */
    private static ByteBuffer golden(String name, Consumer<ByteBuffer> change) {
        ByteBuffer buffer = ByteBuffer.wrap(GoldenPacket.named(name).bytes().clone());
        change.accept(buffer);
        return buffer;
    }

    private static ByteBuffer golden(String name) {
        return golden(name, buffer -> { });
    }

    private void assertRefused(ByteBuffer buffer, int length, DecodeError error, String... messageParts) {
        assertThatThrownBy(() -> decoder.decode(buffer, 0, length))
                .isInstanceOfSatisfying(PacketDecodeException.class, e -> {
                    assertThat(e.error()).isEqualTo(error);
                    assertThat(e.getMessage()).contains(messageParts);
                    assertThat(e.getStackTrace()).isEmpty();
                });
        assertRecovers();
    }

    private void assertRefused(ByteBuffer buffer, DecodeError error, String... messageParts) {
        assertRefused(buffer, buffer.capacity(), error, messageParts);
    }

    /** A rejected packet leaves nothing behind: the next good packet decodes. */
    private void assertRecovers() {
        ByteBuffer good = golden("EAGER_RTW/plain");
        try {
            assertThat(decoder.decode(good, 0, good.capacity()).payloadLength()).isEqualTo(16);
        } catch (PacketDecodeException e) {
            throw new AssertionError(e);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "HANDSHAKE/all5", "CTS/connid", "CTSDATA/connid", "READRSP/connid", "ATOMRSP/connid", "PEER_ERROR/ref_kind=0+connid",
        "EAGER_RTW/2rma_iov+raw_addr+cq_data", "LONGREAD_RTW/2rma_iov+raw_addr+cq_data",
        "LONGREAD_MSGRTM/2read_iov+connid", "RUNTREAD_TAGRTM/raw_addr+cq_data", "WRITE_RTA/2rma_iov+connid",
    })
    void truncatedAtEveryByteBoundary(String name) throws PacketDecodeException {
        GoldenPacket golden = GoldenPacket.named(name);
        ByteBuffer buffer = ByteBuffer.wrap(golden.bytes());
        DecodedPacket whole = decoder.decode(buffer, 0, golden.totalLen());
        int headersEnd = whole.payloadOffset();
        boolean declaresSegment = golden.fields().containsKey("seg_length");

        for (int length = 0; length < golden.totalLen(); length++) {
            if (length < headersEnd) {
                assertRefused(buffer, length, DecodeError.TRUNCATED, "of " + length + " bytes");
            } else if (declaresSegment) {
                assertRefused(buffer, length, DecodeError.SEG_LENGTH,
                        "seg_length " + GoldenPacket.integer(golden.fields().get("seg_length")));
            } else {
                assertThat(decoder.decode(buffer, 0, length).payloadLength()).isEqualTo(length - headersEnd);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 3, 5, 0xff})
    void badVersion(int version) {
        assertRefused(golden("EAGER_MSGRTM/plain", b -> b.put(BaseHeaderFlyweight.VERSION_OFFSET, (byte) version)),
                DecodeError.BAD_VERSION, "version " + version);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 6, 13, 63, 77, 127, 131, 132, 148, 255})
    void unknownType(int type) {
        assertRefused(golden("EOR/connid", b -> b.put(BaseHeaderFlyweight.TYPE_OFFSET, (byte) type)),
                DecodeError.UNKNOWN_TYPE, "packet type " + type);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void retiredType(int type) {
        assertRefused(golden("EOR/connid", b -> b.put(BaseHeaderFlyweight.TYPE_OFFSET, (byte) type)),
                DecodeError.RETIRED_TYPE, "retired");
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2})
    void nextraP3BelowThree(int nextraP3) {
        assertRefused(golden("HANDSHAKE/no_opt", b -> b.putInt(HandshakeFlyweight.NEXTRA_P3_OFFSET, Integer.reverseBytes(nextraP3))),
                DecodeError.NEXTRA_P3, "nextra_p3 " + nextraP3, "minimum 3");
    }

    @Test
    void nextraP3OfThreeMeansNoExtraInfo() throws PacketDecodeException {
        ByteBuffer buffer = golden("HANDSHAKE/no_opt", b -> b.put(HandshakeFlyweight.NEXTRA_P3_OFFSET, (byte) 3));

        DecodedPacket packet = decoder.decode(buffer, 0, HandshakeFlyweight.HEADER_LENGTH);

        assertThat(packet.headerLength()).isEqualTo(HandshakeFlyweight.HEADER_LENGTH);
        assertThat(new HandshakeFlyweight().wrap(buffer, 0).hasExtraFeature(ExtraFeature.RDMA_READ)).isFalse();
    }

    @ParameterizedTest
    @ValueSource(longs = {8, 0xffff_ffffL})
    void nextraP3AboveLimit(long nextraP3) {
        assertRefused(golden("HANDSHAKE/no_opt", b -> b.putInt(HandshakeFlyweight.NEXTRA_P3_OFFSET, Integer.reverseBytes((int) nextraP3))),
                DecodeError.NEXTRA_P3, "nextra_p3 " + nextraP3, "limit 7");
    }

    @Test
    void nextraP3LargerThanTheBytesPresent() {
        // nextra_p3 = 5 announces two extra_info words; the packet holds one.
        assertRefused(golden("HANDSHAKE/no_opt", b -> b.put(HandshakeFlyweight.NEXTRA_P3_OFFSET, (byte) 5)),
                DecodeError.TRUNCATED, "extra_info[2]", "needs 24");
    }

    @Test
    void handshakeOptionalHeaderMissing() {
        // Announces the HMEM header as well; the packet ends after the device version.
        assertRefused(golden("HANDSHAKE/device_version", b -> b.put(BaseHeaderFlyweight.FLAGS_OFFSET, (byte) 0x0a)),
                DecodeError.TRUNCATED, "optional headers", "needs 32");
    }

    @ParameterizedTest
    @ValueSource(longs = {5, 0x8000_0000L, 0xffff_ffffL})
    void rmaIovCountAboveLimit(long count) {
        assertRefused(golden("EAGER_RTW/plain", b -> b.putInt(EagerRtwFlyweight.RMA_IOV_COUNT_OFFSET, Integer.reverseBytes((int) count))),
                DecodeError.IOV_COUNT, "rma_iov_count " + count, "limit 4");
    }

    @Test
    void rmaIovCountAboveConfiguredLimit() {
        PacketDecoder strict = new PacketDecoder(WireLimits.DEFAULT.withMaxRmaIovCount(1));
        ByteBuffer buffer = golden("WRITE_RTA/2rma_iov+connid");

        assertThatThrownBy(() -> strict.decode(buffer, 0, buffer.capacity()))
                .isInstanceOfSatisfying(PacketDecodeException.class,
                        e -> assertThat(e.error()).isEqualTo(DecodeError.IOV_COUNT));
    }

    @Test
    void rmaIovCountLargerThanTheBytesPresent() {
        // 3 entries need 24 + 72 bytes; the packet has 56.
        assertRefused(golden("WRITE_RTA/plain", b -> b.put(RtaFlyweight.RMA_IOV_COUNT_OFFSET, (byte) 3)),
                DecodeError.TRUNCATED, "3 rma_iov entries", "needs 96");
    }

    @ParameterizedTest
    @ValueSource(longs = {5, 0xffff_ffffL})
    void readIovCountAboveLimit(long count) {
        assertRefused(golden("LONGREAD_MSGRTM/plain",
                        b -> b.putInt(LongReadRtmFlyweight.READ_IOV_COUNT_OFFSET, Integer.reverseBytes((int) count))),
                DecodeError.IOV_COUNT, "read_iov_count " + count, "limit 4");
    }

    @Test
    void readIovCountLargerThanTheBytesPresent() {
        assertRefused(golden("LONGREAD_MSGRTM/plain", b -> b.put(LongReadRtmFlyweight.READ_IOV_COUNT_OFFSET, (byte) 2)),
                DecodeError.TRUNCATED, "2 read_iov entries", "needs 72");
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 4, 31})
    void rawAddrLenBelowTheRawAddress(int addrLen) {
        assertRefused(golden("EAGER_MSGRTM/raw_addr", b -> b.put(EagerRtmFlyweight.MSGRTM_HEADER_LENGTH, (byte) addrLen)),
                DecodeError.RAW_ADDR_LENGTH, "addr_len " + addrLen, "minimum 32");
    }

    @Test
    void rawAddrLenLargerThanTheBytesPresent() {
        assertRefused(golden("EAGER_MSGRTM/raw_addr",
                        b -> b.putInt(EagerRtmFlyweight.MSGRTM_HEADER_LENGTH, 0xffff_ffff)),
                DecodeError.TRUNCATED, "addr_len 4294967295");
    }

    @Test
    void rawAddrLenOf32FromADocumentConformingSender() throws PacketDecodeException {
        // DISCREPANCIES.md A4: the receiver skips 4 + addr_len bytes, so the 4 trailing bytes become payload.
        ByteBuffer buffer = golden("EAGER_MSGRTM/raw_addr", b -> b.put(EagerRtmFlyweight.MSGRTM_HEADER_LENGTH, (byte) 32));

        DecodedPacket packet = decoder.decode(buffer, 0, buffer.capacity());

        assertThat(packet.headerLength()).isEqualTo(EagerRtmFlyweight.MSGRTM_HEADER_LENGTH + 36);
        assertThat(packet.payloadLength()).isEqualTo(20);
    }

    @Test
    void optionalHeaderAnnouncedButAbsent() {
        // CONNID_HDR announces a 4-byte connid after the CQ data; a 16-byte payload leaves room, a 2-byte one not.
        assertRefused(golden("EAGER_MSGRTM/plain", b -> b.put(BaseHeaderFlyweight.FLAGS_OFFSET, (byte) 0x07)),
                10, DecodeError.TRUNCATED, "raw address addr_len");
        assertRefused(golden("EAGER_MSGRTM/plain", b -> b.put(BaseHeaderFlyweight.FLAGS_OFFSET, (byte) 0x06)),
                10, DecodeError.TRUNCATED, "CQ data header");
    }

    @ParameterizedTest
    @ValueSource(strings = {"READRSP/connid", "ATOMRSP/connid", "CTSDATA/connid"})
    void segLengthAboveTheDataPresent(String name) {
        int segLengthOffset = name.startsWith("CTSDATA") ? CtsDataFlyweight.SEG_LENGTH_OFFSET : ReadRspFlyweight.SEG_LENGTH_OFFSET;
        assertRefused(golden(name, b -> b.putLong(segLengthOffset, -1L)),
                DecodeError.SEG_LENGTH, "seg_length 18446744073709551615");
    }

    @Test
    void ctsRecvLengthZero() {
        assertRefused(golden("CTS/connid", b -> b.putLong(CtsFlyweight.RECV_LENGTH_OFFSET, 0)),
                DecodeError.CTS_RECV_LENGTH, "recv_length 0");
    }

    @Test
    void rangeOutsideTheBufferIsAProgrammingError() {
        ByteBuffer buffer = golden("EOR/connid");

        assertThatThrownBy(() -> decoder.decode(buffer, 8, 16)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void errorIdsAreShortKebabCase() {
        for (DecodeError error : DecodeError.values()) {
            assertThat(error.id()).matches("[a-z0-9]+(-[a-z0-9]+)*");
        }
        assertThat(DecodeError.TRUNCATED.id()).isEqualTo("truncated");
        assertThat(DecodeError.NEXTRA_P3.id()).isEqualTo("nextra-p3");
    }

    @Test
    void limitsRefuseNonsense() {
        assertThatThrownBy(() -> new WireLimits(0, 4, 7)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> WireLimits.DEFAULT.withMaxNextraP3(3)).isInstanceOf(IllegalArgumentException.class);
    }
}
