package org.rpcrdma4j.efa.wire;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * One line of {@code vectors/libfabric/packets.jsonl}: a packet the libfabric provider builds, its
 * decoded fields by wire name (hex strings) and its bytes.
 */
public record GoldenPacket(String name, int pktType, int flags, int hdrLen, int totalLen, Map<String, Object> fields,
                    byte[] bytes) {

    static final String RESOURCE = "/vectors/libfabric/packets.jsonl";

    @SuppressWarnings("unchecked")
    static List<GoldenPacket> all() {
        List<GoldenPacket> packets = new ArrayList<>();
        try (InputStream in = GoldenPacket.class.getResourceAsStream(RESOURCE);
             BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                if (line.isBlank()) {
                    continue;
                }
                Map<String, Object> record = (Map<String, Object>) TestJson.parse(line);
                packets.add(new GoldenPacket((String) record.get("name"),
                        ((Number) record.get("pkt_type")).intValue(),
                        Integer.decode((String) record.get("flags")),
                        ((Number) record.get("hdr_len")).intValue(),
                        ((Number) record.get("total_len")).intValue(),
                        (Map<String, Object>) record.get("fields"),
                        HexFormat.of().parseHex((String) record.get("hex"))));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return packets;
    }

    /** The golden packets proper, without the bare raw-address record. */
    static List<GoldenPacket> packets() {
        return all().stream().filter(p -> p.pktType() >= 0).toList();
    }

    /**
     * @param type a packet type
     * @return every golden packet of that type, each variant of optional headers once
     */
    public static List<GoldenPacket> ofType(PacketType type) {
        return packets().stream().filter(p -> p.pktType() == type.id()).toList();
    }

    /**
     * @param name a golden packet's name, {@code TYPE/variant}
     * @return it
     */
    public static GoldenPacket named(String name) {
        return all().stream().filter(p -> p.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no golden packet " + name));
    }

    /** Parses a golden integer field, a {@code 0x}-prefixed hex string, as an unsigned value. */
    public static long integer(Object hex) {
        String s = (String) hex;
        if (!s.startsWith("0x")) {
            throw new IllegalArgumentException("not a hex integer: " + s);
        }
        return Long.parseUnsignedLong(s.substring(2), 16);
    }

    @Override
    public String toString() {
        return name;
    }
}
