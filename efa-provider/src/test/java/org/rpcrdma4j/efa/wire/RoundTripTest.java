package org.rpcrdma4j.efa.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Random valid packets, built on the layout of each golden packet with random field values, random
 * {@code rma_iov}, {@code read_iov} and {@code extra_info} counts within the default limits and random
 * payloads, survive encode, decode and field walk unchanged. The seed is printed on failure and can be
 * replayed with {@code -Drpcrdma4j.seed=N}.
 */
class RoundTripTest {

    private static final int ROUNDS_PER_TEMPLATE = 50;
    /** Fields that shape the layout; they are derived, not randomised. */
    private static final List<String> STRUCTURAL = List.of("type", "version", "flags", "nextra_p3", "rma_iov_count",
            "read_iov_count", "addr_len", "seg_length", "extra_info", "rma_iov", "read_iov", "payload");

    private final long seed = Long.getLong("rpcrdma4j.seed", System.nanoTime());
    private final Random random = new Random(seed);
    private final PacketDecoder decoder = new PacketDecoder();

    @Test
    void randomHeadersRoundTrip() {
        for (GoldenPacket template : GoldenPacket.packets()) {
            for (int round = 0; round < ROUNDS_PER_TEMPLATE; round++) {
                Map<String, Object> fields = randomize(template);
                ByteBuffer buffer = ByteBuffer.allocate(1024);
                int length = GoldenEncoder.encode(fields, buffer);

                String context = "seed " + seed + ", template " + template.name() + ", round " + round;
                DecodedPacket packet;
                try {
                    packet = decoder.decode(buffer, 0, length);
                } catch (PacketDecodeException e) {
                    throw new AssertionError(context + ": " + e.getMessage(), e);
                }
                assertThat(packet.type().id()).as(context).isEqualTo(template.pktType());
                assertThat(packet.flags()).as(context).isEqualTo(template.flags());
                assertThat(FieldCollector.collect(buffer, packet)).as(context).isEqualTo(FieldCollector.normalize(fields));
                byte[] payload = new byte[packet.payloadLength()];
                buffer.get(packet.payloadOffset(), payload);
                assertThat(HexFormat.of().formatHex(payload)).as(context).isEqualTo(fields.getOrDefault("payload", ""));
            }
        }
    }

    private Map<String, Object> randomize(GoldenPacket template) {
        PacketType type = PacketType.fromId(template.pktType());
        Map<String, Object> fields = new LinkedHashMap<>();
        template.fields().forEach((name, value) -> fields.put(name, STRUCTURAL.contains(name) ? value : randomLike(value)));
        if (type.hasRmaIov()) {
            iovArray(fields, "rma_iov", "rma_iov_count", WireLimits.DEFAULT_MAX_RMA_IOV_COUNT);
        }
        if (type.hasReadIov()) {
            iovArray(fields, "read_iov", "read_iov_count", WireLimits.DEFAULT_MAX_READ_IOV_COUNT);
        }
        if (type == PacketType.HANDSHAKE) {
            List<Object> extraInfo = new ArrayList<>();
            int words = 1 + random.nextInt((int) WireLimits.DEFAULT_MAX_NEXTRA_P3 - HandshakeFlyweight.MIN_NEXTRA_P3);
            for (int i = 0; i < words; i++) {
                extraInfo.add(hex(random.nextLong(), 8));
            }
            fields.put("extra_info", extraInfo);
            fields.put("nextra_p3", hex(words + HandshakeFlyweight.MIN_NEXTRA_P3, 4));
        }
        if (fields.containsKey("payload")) {
            byte[] payload = new byte[random.nextInt(65)];
            random.nextBytes(payload);
            fields.put("payload", HexFormat.of().formatHex(payload));
            if (fields.containsKey("seg_length")) {
                fields.put("seg_length", hex(payload.length, 8));
            }
        }
        if (type == PacketType.CTS) {
            // Section 3.2: a CTS grants at least one byte.
            fields.put("recv_length", hex(random.nextLong() | 1, 8));
        }
        return fields;
    }

    /** Replaces an array with 0 to {@code limit} random entries; an empty array is not reported at all. */
    private void iovArray(Map<String, Object> fields, String name, String countName, int limit) {
        int count = random.nextInt(limit + 1);
        List<Object> entries = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("addr", hex(random.nextLong(), 8));
            entry.put("len", hex(random.nextLong(), 8));
            entry.put("key", hex(random.nextLong(), 8));
            entries.add(entry);
        }
        fields.put(countName, hex(count, 4));
        if (count == 0) {
            fields.remove(name);
        } else {
            fields.put(name, entries);
        }
    }

    /** A random value of the same shape and width as a golden value. */
    private Object randomLike(Object value) {
        if (value instanceof Map<?, ?> map) {
            Map<String, Object> out = new LinkedHashMap<>();
            map.forEach((key, v) -> out.put((String) key, STRUCTURAL.contains(key) ? v : randomLike(v)));
            return out;
        }
        String s = (String) value;
        if (s.startsWith("0x")) {
            int width = (s.length() - 2) / 2;
            return hex(width == 8 ? random.nextLong() : random.nextLong() & ((1L << (8 * width)) - 1), width);
        }
        byte[] bytes = new byte[s.length() / 2];
        random.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    private static String hex(long value, int width) {
        return "0x" + String.format("%0" + (2 * width) + "x", value);
    }
}
