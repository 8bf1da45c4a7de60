package org.rpcrdma4j.efa.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.ByteBuffer;

/**
 * Feeds arbitrary bytes to the EFA packet decoder: it may only return a packet whose parts lie inside
 * the bytes given, or throw {@link PacketDecodeException}; anything else is a finding. Seeded with one
 * golden libfabric packet per type (vectors/libfabric). Under {@code mvn verify} it runs in regression
 * mode over {@code PacketDecoderFuzzTestInputs/decode/}; to fuzz:
 * {@code JAZZER_FUZZ=1 mvn -pl efa-provider test -Dtest=PacketDecoderFuzzTest}.
 */
class PacketDecoderFuzzTest {

    private static final PacketDecoder DECODER = new PacketDecoder();

    @FuzzTest(maxDuration = "10m")
    void decode(byte[] bytes) {
        // At an odd offset with bytes after the packet: neither may be read.
        ByteBuffer buffer = ByteBuffer.allocate(bytes.length + 10);
        buffer.put(3, bytes);
        DecodedPacket packet;
        try {
            packet = DECODER.decode(buffer, 3, bytes.length);
        } catch (PacketDecodeException e) {
            assertThat(e.error()).isNotNull();
            return;
        }
        assertThat(packet.headerLength()).isBetween(packet.mandatoryHeaderLength(), bytes.length);
        assertThat(packet.payloadOffset() + packet.payloadLength()).isEqualTo(3 + bytes.length);
        assertThat(packet.payloadLength()).isNotNegative();
        assertThat(packet.readIovCount()).isBetween(0, WireLimits.DEFAULT.maxReadIovCount());
    }
}
