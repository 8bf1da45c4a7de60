package org.rpcrdma4j.testbed.trace;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.HexFormat;
import java.util.function.Consumer;

/**
 * Turns the JSON Lines export of a capture (the traces' {@code export.py}: one object per RoCEv2
 * packet) back into {@link RocePacket}s, so that an export goes through the same reassembly as its pcap.
 * The export gives each extended header (DETH, RETH, AETH, ImmDt, IETH) as fields of its own and only
 * the bytes after them as {@code payload_hex}; they are re-encoded in wire order ahead of the payload,
 * which is where the readers of each opcode look for them.
 *
 * <p>An export may elide bulk payloads: a {@code payload_hex} shorter than {@code payload_len} bytes (or
 * absent). Such a packet keeps its length, with zeros for the missing bytes so that reassembly stays
 * aligned, and is marked {@link RocePacket#elided()} so that nothing built from it is taken as Linux's.
 */
final class JsonLinesPackets {

    /** The largest IB MTU: no packet's payload is longer, so no line makes a larger allocation. */
    private static final int MAX_PAYLOAD = 4096;
    private static final ObjectMapper JSON = new ObjectMapper();

    private JsonLinesPackets() {
    }

    /**
     * @param export  the export, one JSON object per line
     * @param packets gets each packet in capture order
     * @throws IOException if it cannot be read or a line is not such an object
     */
    static void read(BufferedReader export, Consumer<RocePacket> packets) throws IOException {
        int number = 0;
        for (String line = export.readLine(); line != null; line = export.readLine()) {
            number++;
            if (line.isBlank()) {
                continue;
            }
            try {
                packets.accept(packet(JSON.readTree(line)));
            } catch (JsonProcessingException e) {
                throw new IOException("line " + number + " is not JSON: " + e.getOriginalMessage(), e);
            } catch (IllegalArgumentException | ArithmeticException e) {
                throw new IOException("line " + number + " is not a packet of the export: " + e.getMessage(), e);
            }
        }
    }

    private static RocePacket packet(JsonNode r) {
        if (!r.isObject()) {
            throw new IllegalArgumentException("not an object");
        }
        int opcode = integer(r, "opcode");
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        JsonNode deth = r.get("deth");
        if (deth != null) {
            put(b, hex(deth, "qkey"), 4);
            put(b, integer(deth, "src_qp"), 4);   // reserved byte, then the 24-bit source QP
        }
        JsonNode reth = r.get("reth");
        if (reth != null) {
            put(b, Long.parseUnsignedLong(strip(text(reth, "va")), 16), 8);
            put(b, hex(reth, "rkey"), 4);
            put(b, integer(reth, "dmalen"), 4);
        }
        JsonNode aeth = r.get("aeth");
        if (aeth != null) {
            put(b, hex(aeth, "syndrome"), 1);
            put(b, integer(aeth, "msn"), 3);
        }
        if (r.has("immdt")) {
            put(b, hex(r, "immdt"), 4);
        }
        if (r.has("ieth_rkey")) {
            put(b, hex(r, "ieth_rkey"), 4);
        }
        String hex = r.path("payload_hex").isTextual() ? r.get("payload_hex").asText() : "";
        byte[] known = HexFormat.of().parseHex(hex.length() % 2 == 0 ? hex : hex.substring(0, hex.length() - 1));
        int length = r.has("payload_len") ? integer(r, "payload_len") : known.length;
        if (length < 0 || length > MAX_PAYLOAD) {
            throw new IllegalArgumentException("payload_len " + length + " is not within an IB MTU of " + MAX_PAYLOAD);
        }
        int from = b.size();
        b.write(known, 0, Math.min(known.length, length));
        byte[] bytes = new byte[from + length];
        System.arraycopy(b.toByteArray(), 0, bytes, 0, b.size());
        return new RocePacket(integer(r, "frame"), address(text(r, "src")), address(text(r, "dst")),
                opcode >>> 5, opcode & 0x1F, integer(r, "dst_qp"), integer(r, "psn"), bytes, 0, bytes.length,
                known.length < length);
    }

    private static void put(ByteArrayOutputStream b, long value, int bytes) {
        for (int shift = 8 * (bytes - 1); shift >= 0; shift -= 8) {
            b.write((int) (value >>> shift));
        }
    }

    private static int integer(JsonNode r, String name) {
        JsonNode v = r.get(name);
        if (v == null || !v.isIntegralNumber() || !v.canConvertToInt()) {
            throw new IllegalArgumentException("\"" + name + "\" is not a 32-bit integer");
        }
        return v.intValue();
    }

    private static String text(JsonNode r, String name) {
        JsonNode v = r.get(name);
        if (v == null || !v.isTextual()) {
            throw new IllegalArgumentException("\"" + name + "\" is not a string");
        }
        return v.asText();
    }

    private static long hex(JsonNode r, String name) {
        return Long.parseLong(strip(text(r, name)), 16);
    }

    private static String strip(String hex) {
        return hex.startsWith("0x") ? hex.substring(2) : hex;
    }

    private static int address(String dotted) {
        String[] parts = dotted.split("\\.");
        if (parts.length != 4) {
            throw new IllegalArgumentException("not an IPv4 address: " + dotted);
        }
        int a = 0;
        for (String part : parts) {
            a = a << 8 | Integer.parseInt(part);
        }
        return a;
    }
}
