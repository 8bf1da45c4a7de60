package org.rpcrdma4j.efa.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every golden packet of the libfabric provider decodes to its fields and re-encodes to its bytes. */
class GoldenVectorTest {

    private final PacketDecoder decoder = new PacketDecoder();

    static List<GoldenPacket> packets() {
        return GoldenPacket.packets();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("packets")
    void decodesEveryField(GoldenPacket golden) throws PacketDecodeException {
        // Offset the packet in a big-endian buffer: neither the index nor the byte order may matter.
        ByteBuffer buffer = ByteBuffer.allocate(golden.bytes().length + 16).order(ByteOrder.BIG_ENDIAN);
        buffer.put(7, golden.bytes());

        DecodedPacket packet = decoder.decode(buffer, 7, golden.bytes().length);

        BaseHeaderFlyweight base = new BaseHeaderFlyweight().wrap(buffer, 7);
        assertThat(base.type()).isEqualTo(golden.pktType()).isEqualTo(packet.type().id());
        assertThat(base.version()).isEqualTo(BaseHeaderFlyweight.PROTOCOL_VERSION);
        assertThat(base.flags()).isEqualTo(golden.flags()).isEqualTo(packet.flags());
        assertThat(packet.headerLength()).isEqualTo(golden.hdrLen());
        assertThat(FieldCollector.collect(buffer, packet)).isEqualTo(FieldCollector.normalize(golden.fields()));

        byte[] payload = new byte[packet.payloadLength()];
        buffer.get(packet.payloadOffset(), payload);
        assertThat(HexFormat.of().formatHex(payload)).isEqualTo(golden.fields().getOrDefault("payload", ""));
        assertThat(packet.payloadOffset() + packet.payloadLength() - 7).isEqualTo(golden.totalLen());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("packets")
    void reencodesByteForByte(GoldenPacket golden) {
        ByteBuffer buffer = ByteBuffer.allocate(512);

        int length = GoldenEncoder.encode(golden.fields(), buffer);

        assertThat(HexFormat.of().formatHex(Arrays.copyOf(buffer.array(), length)))
                .isEqualTo(HexFormat.of().formatHex(golden.bytes()));
    }

    @Test
    void goldenSetCoversEveryPacketTypeOnTheWire() {
        List<Integer> golden = packets().stream().map(GoldenPacket::pktType).distinct().sorted().toList();

        assertThat(golden).containsExactlyElementsOf(Arrays.stream(PacketType.values())
                .filter(type -> !type.isRetired()).map(PacketType::id).sorted().toList());
    }

    @Test
    void rawAddressRecordDecodesAndReencodes() {
        GoldenPacket golden = GoldenPacket.named("RAW_ADDRESS/efa_ep_addr");
        Map<String, Object> fields = golden.fields();
        RawAddressFlyweight address = new RawAddressFlyweight().wrap(ByteBuffer.wrap(golden.bytes()), 0);

        byte[] gid = new byte[RawAddressFlyweight.GID_LENGTH];
        address.getGid(gid);
        assertThat(HexFormat.of().formatHex(gid)).isEqualTo(fields.get("gid"));
        assertThat(address.qpn()).isEqualTo(GoldenPacket.integer(fields.get("qpn")));
        assertThat(address.pad()).isEqualTo(GoldenPacket.integer(fields.get("pad")));
        assertThat(address.qkey()).isEqualTo(GoldenPacket.integer(fields.get("qkey")));
        assertThat(address.next()).isEqualTo(GoldenPacket.integer(fields.get("next")));

        byte[] encoded = new byte[RawAddressFlyweight.LENGTH];
        new RawAddressFlyweight().wrap(ByteBuffer.wrap(encoded), 0).gid(gid).qpn(address.qpn()).pad(address.pad())
                .qkey(address.qkey()).next(address.next());
        assertThat(encoded).isEqualTo(golden.bytes());
    }

    @Test
    void handshakeReportsTheAdvertisedExtraFeatures() throws PacketDecodeException {
        // extra_info[0] = 0x6b: features 0, 1, 3, 5 and 6.
        GoldenPacket golden = GoldenPacket.named("HANDSHAKE/nextra_p3=5+connid+host_id+device_version");
        ByteBuffer buffer = ByteBuffer.wrap(golden.bytes());
        decoder.decode(buffer, 0, golden.bytes().length);

        HandshakeFlyweight handshake = new HandshakeFlyweight().wrap(buffer, 0);

        assertThat(Arrays.stream(ExtraFeature.values()).filter(handshake::hasExtraFeature))
                .containsExactly(ExtraFeature.RDMA_READ, ExtraFeature.DELIVERY_COMPLETE, ExtraFeature.CONNID_HEADER,
                        ExtraFeature.RDMA_WRITE, ExtraFeature.READ_NACK);
        assertThat(handshake.extraInfoCount()).isEqualTo(2);
        assertThat(handshake.optionalHeaderOffset(PacketFlags.HANDSHAKE_DEVICE_VERSION_HDR_FLAG)).isEqualTo(40);
    }
}
