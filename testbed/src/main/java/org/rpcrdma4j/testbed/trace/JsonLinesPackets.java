package org.rpcrdma4j.testbed.trace;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
                packets.accept(packet(new Parser(line).object()));
            } catch (IllegalArgumentException | IndexOutOfBoundsException | ArithmeticException | ClassCastException
                     | NullPointerException e) {
                throw new IOException("line " + number + " is not a packet of the export: " + e.getMessage(), e);
            }
        }
    }

    private static RocePacket packet(Map<String, Object> r) {
        int opcode = integer(r, "opcode");
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        Map<String, Object> deth = object(r, "deth");
        if (deth != null) {
            put(b, hex(deth, "qkey"), 4);
            put(b, integer(deth, "src_qp"), 4);   // reserved byte, then the 24-bit source QP
        }
        Map<String, Object> reth = object(r, "reth");
        if (reth != null) {
            put(b, Long.parseUnsignedLong(strip((String) reth.get("va")), 16), 8);
            put(b, hex(reth, "rkey"), 4);
            put(b, integer(reth, "dmalen"), 4);
        }
        Map<String, Object> aeth = object(r, "aeth");
        if (aeth != null) {
            put(b, hex(aeth, "syndrome"), 1);
            put(b, integer(aeth, "msn"), 3);
        }
        if (r.containsKey("immdt")) {
            put(b, hex(r, "immdt"), 4);
        }
        if (r.containsKey("ieth_rkey")) {
            put(b, hex(r, "ieth_rkey"), 4);
        }
        String hex = r.get("payload_hex") instanceof String s ? s : "";
        byte[] known = HexFormat.of().parseHex(hex.length() % 2 == 0 ? hex : hex.substring(0, hex.length() - 1));
        int length = r.containsKey("payload_len") ? integer(r, "payload_len") : known.length;
        if (length < 0 || length > MAX_PAYLOAD) {
            throw new IllegalArgumentException("payload_len " + length + " is not within an IB MTU of " + MAX_PAYLOAD);
        }
        int from = b.size();
        b.write(known, 0, Math.min(known.length, length));
        byte[] bytes = new byte[from + length];
        System.arraycopy(b.toByteArray(), 0, bytes, 0, b.size());
        return new RocePacket(integer(r, "frame"), address((String) r.get("src")), address((String) r.get("dst")),
                opcode >>> 5, opcode & 0x1F, integer(r, "dst_qp"), integer(r, "psn"), bytes, 0, bytes.length,
                known.length < length);
    }

    private static void put(ByteArrayOutputStream b, long value, int bytes) {
        for (int shift = 8 * (bytes - 1); shift >= 0; shift -= 8) {
            b.write((int) (value >>> shift));
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(Map<String, Object> r, String name) {
        return (Map<String, Object>) r.get(name);
    }

    private static int integer(Map<String, Object> r, String name) {
        Object v = r.get(name);
        if (!(v instanceof Long l)) {
            throw new IllegalArgumentException("\"" + name + "\" is not an integer");
        }
        return Math.toIntExact(l);
    }

    private static long hex(Map<String, Object> r, String name) {
        return Long.parseLong(strip((String) r.get(name)), 16);
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

    /**
     * Just enough JSON (RFC 8259) for one line of the export: objects, arrays, strings, integers (as
     * {@link Long}), other numbers (as {@link Double}), booleans and null. The export nests tshark's
     * dissection and free text under other keys, so the line is parsed whole rather than searched.
     */
    private static final class Parser {

        private final String s;
        private int at;

        Parser(String s) {
            this.s = s;
        }

        Map<String, Object> object() {
            Map<String, Object> o = new LinkedHashMap<>();
            expect('{');
            if (peek() == '}') {
                at++;
                return o;
            }
            do {
                skipSpace();
                String name = string();
                expect(':');
                o.put(name, value());
            } while (next(',', '}'));
            return o;
        }

        private Object value() {
            char c = peek();
            switch (c) {
                case '{':
                    return object();
                case '[':
                    at++;
                    List<Object> list = new ArrayList<>();
                    if (peek() == ']') {
                        at++;
                        return list;
                    }
                    do {
                        list.add(value());
                    } while (next(',', ']'));
                    return list;
                case '"':
                    return string();
                default:
                    return literal();
            }
        }

        private Object literal() {
            int start = at;
            while (at < s.length() && ",}] \t".indexOf(s.charAt(at)) < 0) {
                at++;
            }
            String word = s.substring(start, at);
            return switch (word) {
                case "true" -> Boolean.TRUE;
                case "false" -> Boolean.FALSE;
                case "null" -> null;
                default -> word.matches("-?\\d+") ? (Object) Long.valueOf(word) : (Object) Double.valueOf(word);
            };
        }

        private String string() {
            expect('"');
            StringBuilder out = new StringBuilder();
            while (true) {
                char c = s.charAt(at++);
                if (c == '"') {
                    return out.toString();
                }
                if (c != '\\') {
                    out.append(c);
                    continue;
                }
                char e = s.charAt(at++);
                switch (e) {
                    case 'b' -> out.append('\b');
                    case 'f' -> out.append('\f');
                    case 'n' -> out.append('\n');
                    case 'r' -> out.append('\r');
                    case 't' -> out.append('\t');
                    case 'u' -> {
                        out.append((char) Integer.parseInt(s.substring(at, at + 4), 16));
                        at += 4;
                    }
                    default -> out.append(e);
                }
            }
        }

        /** @return true after {@code more}, false after {@code end} */
        private boolean next(char more, char end) {
            char c = peek();
            at++;
            if (c == more) {
                return true;
            }
            if (c == end) {
                return false;
            }
            throw new IllegalArgumentException("expected '" + more + "' or '" + end + "' at " + (at - 1));
        }

        private void expect(char c) {
            if (peek() != c) {
                throw new IllegalArgumentException("expected '" + c + "' at " + at);
            }
            at++;
        }

        private char peek() {
            skipSpace();
            if (at >= s.length()) {
                throw new IllegalArgumentException("the line ends early");
            }
            return s.charAt(at);
        }

        private void skipSpace() {
            while (at < s.length() && Character.isWhitespace(s.charAt(at))) {
                at++;
            }
        }
    }
}
