package org.rpcrdma4j.testbed.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rpcrdma4j.testbed.Main;

/**
 * {@code decode efa --pcap} on a capture of the udp device's traffic made with dumpcap (vectors/udp/README.md),
 * checked against what the demo did and against tshark's reading of the UDP layer; and on datagrams made here
 * by hand, one per rule a datagram can break.
 */
class DecodeEfaCaptureTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int LINKTYPE_ETHERNET = 1;
    private static final int LINKTYPE_LINUX_SLL = 113;
    private static final int LINKTYPE_LINUX_SLL2 = 276;
    private static final int UDP = 17;
    private static final int IP_IN_IP = 4;
    private static final int MORE_FRAGMENTS = 0x2000;

    @TempDir
    Path dir;

    @Test
    void everyDatagramOfTheDemoDecodesAsWhatTheDemoDid() throws Exception {
        List<JsonNode> lines = decode(0, "--strict", "--pcap", demo().toString());

        assertThat(lines).hasSize(200).allSatisfy(line -> assertThat(line.has("error")).isFalse());
        assertThat(count(lines, l -> l.at("/srd/type").asText()))
                .isEqualTo(Map.of("DATA", 138L, "ACK", 61L, "PROBE", 1L));
        assertThat(count(lines, l -> l.at("/srd/op").asText()))
                .isEqualTo(Map.of("", 62L, "SEND", 65L, "RESULT", 64L, "READ_REQUEST", 1L, "READ_RESPONSE", 4L,
                        "WRITE", 4L));
        // A SEND, and only a SEND, carries an EFA packet: both sides' handshakes, then tagged eager messages.
        assertThat(lines).allSatisfy(l -> assertThat(l.has("packet")).isEqualTo(l.at("/srd/op").asText().equals("SEND")));
        assertThat(count(lines, l -> l.at("/packet/type").asText()))
                .containsEntry("HANDSHAKE", 2L).containsEntry("EAGER_TAGRTM", 63L);
        assertThat(lines.stream().filter(l -> l.at("/packet/type").asText().equals("HANDSHAKE"))
                .map(l -> l.get("source").asText())).doesNotHaveDuplicates();
        assertThat(lines).filteredOn(l -> l.has("packet")).allSatisfy(l -> assertThat(
                l.at("/packet/headerLength").asInt() + l.at("/packet/payloadLength").asInt())
                .isEqualTo(l.at("/srd/payloadLength").asInt()));
        // The server's RDMA read of the 64 KiB Read chunk and its RDMA writes into the Write chunk: 16 KiB
        // segments, in order, that cover it.
        for (String op : List.of("READ_RESPONSE", "WRITE")) {
            List<JsonNode> segments = lines.stream().filter(l -> l.at("/srd/op").asText().equals(op)).toList();
            long at = 0;
            for (JsonNode segment : segments) {
                assertThat(segment.at("/srd/total").asLong()).isEqualTo(65536);
                assertThat(segment.at("/srd/offset").asLong()).as("%s in frame %s", op, segment.get("frame"))
                        .isEqualTo(at);
                at += segment.at("/srd/payloadLength").asLong();
            }
            assertThat(at).isEqualTo(65536);
        }
        psnsRiseByOneAndAcksTrailThem(lines);
    }

    /**
     * Each side's PSNs of its stream start at 0 and rise by one, a PSN seen before being a retransmission; an
     * acknowledgement names the other side's stream and never a PSN it has not sent yet.
     */
    private static void psnsRiseByOneAndAcksTrailThem(List<JsonNode> lines) {
        Map<String, Long> streams = new HashMap<>();
        Map<String, Long> next = new HashMap<>();
        int retransmissions = 0;
        for (JsonNode line : lines) {
            String from = line.get("source").asText();
            JsonNode srd = line.get("srd");
            if (srd.get("type").asText().equals("DATA")) {
                assertThat(streams.computeIfAbsent(from, f -> srd.get("stream").asLong()))
                        .as("stream of %s", from).isEqualTo(srd.get("stream").asLong());
                long expected = next.getOrDefault(from, 0L);
                long psn = srd.get("psn").asLong();
                assertThat(psn).as("PSN in frame %s", line.get("frame")).isLessThanOrEqualTo(expected);
                if (psn == expected) {
                    next.put(from, expected + 1);
                } else {
                    retransmissions++;
                }
            }
            if (srd.has("ackPsn")) {
                String to = line.get("destination").asText();
                assertThat(srd.get("ackStream").asLong()).isEqualTo(streams.get(to));
                assertThat(srd.get("ackPsn").asLong()).as("ack in frame %s", line.get("frame"))
                        .isLessThanOrEqualTo(next.get(to));
            }
        }
        assertThat(next).isEqualTo(Map.of("127.0.0.1:43675", 68L, "127.0.0.1:24049", 67L));
        assertThat(retransmissions).as("138 DATA frames, 135 PSNs").isEqualTo(3);
    }

    @Test
    void tsharkReadsTheSameDatagramsAtTheSameTimes() throws Exception {
        Path capture = demo();
        List<JsonNode> lines = decode(0, "--pcap", capture.toString());
        Process tshark;
        try {
            tshark = new ProcessBuilder("tshark", "-n", "-r", capture.toString(), "-T", "fields", "-E",
                    "separator=/t", "-e", "frame.number", "-e", "frame.time_epoch", "-e", "ip.src", "-e",
                    "udp.srcport", "-e", "ip.dst", "-e", "udp.dstport", "-e", "udp.length")
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException e) {
            fail("tshark is not installed: scripts/test.sh installs it (Debian's tshark package)", e);
            return;
        }
        List<String> theirs = new String(tshark.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines()
                .toList();
        assertThat(tshark.waitFor(60, TimeUnit.SECONDS)).isTrue();

        List<String> ours = new ArrayList<>();
        for (JsonNode line : lines) {
            Instant time = Instant.parse(line.get("time").asText());
            String epoch = BigDecimal.valueOf(time.getEpochSecond()).add(BigDecimal.valueOf(time.getNano(), 9))
                    .setScale(9).toPlainString();
            String[] source = line.get("source").asText().split(":");
            String[] destination = line.get("destination").asText().split(":");
            ours.add(String.join("\t", line.get("frame").asText(), epoch, source[0], source[1], destination[0],
                    destination[1], String.valueOf(line.get("length").asInt() + 8)));
        }
        assertThat(ours).isEqualTo(theirs);
    }

    @ParameterizedTest
    @ValueSource(ints = {LINKTYPE_ETHERNET, LINKTYPE_LINUX_SLL, LINKTYPE_LINUX_SLL2})
    void eachBrokenRuleGetsItsErrorAndTheNextDatagramStillDecodes(int linkType) throws Exception {
        PcapWriter pcap = new PcapWriter(linkType);
        pcap.datagram(ack());
        pcap.datagram(new byte[10]);
        pcap.datagram(with(ack(), b -> b.putShort(0, (short) 0x1234)));
        pcap.datagram(with(ack(), b -> b.put(2, (byte) 2)));
        pcap.datagram(with(ack(), b -> b.put(3, (byte) 9)));
        pcap.datagram(with(ack(), b -> b.putShort(4, (short) 0)));
        pcap.datagram(Arrays.copyOf(data(1, 0, 0, 0), 60));
        pcap.datagram(with(data(1, 0, 0, 0), b -> b.putInt(80, 1)));
        pcap.datagram(with(data(1, 0, 0, 0), b -> b.put(40, (byte) 7)));
        pcap.datagram(with(data(5, 0, 0, 0), b -> b.put(41, (byte) 99)));
        pcap.datagram(data(4, 4096, 65536, 100));
        pcap.datagram(data(1, 0, 0, 2));
        pcap.frame(ethernetOrCooked(linkType, ip(UDP, udp(data(5, 0, 0, 0)), 0)), 50);
        pcap.frame(ethernetOrCooked(linkType, ip(UDP, udp(data(1, 0, 0, 1000)), MORE_FRAGMENTS)), Integer.MAX_VALUE);
        pcap.frame(ethernetOrCooked(linkType, ip(IP_IN_IP, new byte[100], 0)), Integer.MAX_VALUE);
        pcap.datagram(with(data(5, 0, 0, 0), b -> b.put(41, (byte) 10)));
        Path capture = Files.write(dir.resolve("bad.pcap"), pcap.bytes());

        List<JsonNode> lines = decode(0, "--pcap", capture.toString());
        decode(1, "--strict", "--pcap", capture.toString());

        assertThat(lines.stream().map(l -> l.has("error") ? l.get("error").asText()
                        : l.has("packet") && l.at("/packet/error").isTextual() ? "packet:" + l.at("/packet/error").asText()
                        : l.at("/srd/type").asText()))
                .containsExactly("ACK", "truncated", "bad-magic", "bad-version", "unknown-type", "no-ack", "truncated",
                        "payload-length", "unknown-op", "unknown-status", "segment-range", "packet:truncated",
                        "captured-short", "ip-fragment", "DATA");
        assertThat(lines).allSatisfy(l -> assertThat(l.get("source").asText()).isEqualTo("10.0.0.1:20049"))
                .allSatisfy(l -> assertThat(l.has("message")).isEqualTo(l.has("error")));
        assertThat(lines.get(0).get("srd").toString()).isEqualTo("{\"type\":\"ACK\",\"flags\":1,\"destQkey\":"
                + "4294967295,\"srcQkey\":7,\"ackStream\":3,\"ackPsn\":5,\"sack\":\"8000000000000005\"}");
        assertThat(lines.get(10).get("message").asText()).isEqualTo("100 bytes at offset 65536 do not lie within "
                + "total 4096");
        assertThat(lines.get(14).at("/srd/status").asText()).isEqualTo("REMOTE_ERROR_RNR");
    }

    @Test
    void aLinkTypeItDoesNotReadIsNamed() throws Exception {
        Path capture = Files.write(dir.resolve("raw.pcap"), new PcapWriter(101).bytes());
        StringWriter err = new StringWriter();

        int exit = Main.commandLine().setErr(new PrintWriter(err)).execute("decode", "efa", "--pcap",
                capture.toString());

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("link type 101 is none of those this reads: Ethernet (1), Linux cooked "
                + "SLL (113) and SLL2 (276)");
    }

    private Path demo() throws IOException {
        Path capture = dir.resolve("udp-demo.pcapng");
        try (InputStream in = getClass().getResourceAsStream("/vectors/udp/udp-demo.pcapng")) {
            Files.copy(in, capture);
        }
        return capture;
    }

    private static List<JsonNode> decode(int expectedExit, String... options) throws IOException {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        List<String> args = new ArrayList<>(List.of("decode", "efa"));
        args.addAll(List.of(options));
        int exit = Main.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
                .execute(args.toArray(String[]::new));
        assertThat(exit).as("exit; stderr: %s", err).isEqualTo(expectedExit);
        List<JsonNode> lines = new ArrayList<>();
        for (String line : out.toString().lines().toList()) {
            lines.add(JSON.readTree(line));
        }
        return lines;
    }

    private static Map<String, Long> count(List<JsonNode> lines, Function<JsonNode, String> key) {
        return lines.stream().collect(Collectors.groupingBy(key, TreeMap::new, Collectors.counting()));
    }

    /** An ACK frame, as SrdFrame's Javadoc draws it: little endian, 40 bytes. */
    private static byte[] ack() {
        return ByteBuffer.allocate(40).order(ByteOrder.LITTLE_ENDIAN).putShort(0, (short) 0x4455).put(2, (byte) 1)
                .put(3, (byte) 2).putShort(4, (short) 1).putInt(8, -1).putInt(12, 7).putInt(24, 3).putInt(28, 5)
                .putLong(32, 0x8000000000000005L).array();
    }

    /** A DATA frame with an operation and its payload, which starts as an EFA packet's of version 3. */
    private static byte[] data(int op, long total, long offset, int payload) {
        ByteBuffer b = ByteBuffer.allocate(88 + payload).order(ByteOrder.LITTLE_ENDIAN).putShort(0, (short) 0x4455)
                .put(2, (byte) 1).put(3, (byte) 1).putInt(8, 1).putInt(12, 7).putInt(16, 3).putInt(20, 0)
                .put(40, (byte) op).putLong(48, 42).putLong(64, total).putLong(72, offset).putInt(80, payload);
        if (payload > 1) {
            b.put(88, (byte) 64).put(89, (byte) 3);
        }
        return b.array();
    }

    private interface Edit {
        void apply(ByteBuffer frame);
    }

    private static byte[] with(byte[] frame, Edit edit) {
        edit.apply(ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN));
        return frame;
    }

    private static byte[] udp(byte[] payload) {
        return ByteBuffer.allocate(8 + payload.length).putShort((short) 20049).putShort((short) 40000)
                .putShort((short) (8 + payload.length)).putShort((short) 0).put(payload).array();
    }

    /** An IPv4 header (10.0.0.1 to 10.0.0.2, no options) before {@code payload}. */
    private static byte[] ip(int protocol, byte[] payload, int fragment) {
        return ByteBuffer.allocate(20 + payload.length).put((byte) 0x45).put((byte) 0)
                .putShort((short) (20 + payload.length)).putShort((short) 0).putShort((short) fragment)
                .put((byte) 64).put((byte) protocol).putShort((short) 0)
                .putInt(0x0A000001).putInt(0x0A000002).put(payload).array();
    }

    private static byte[] ethernetOrCooked(int linkType, byte[] ipPacket) {
        ByteBuffer b = switch (linkType) {
            case LINKTYPE_LINUX_SLL -> ByteBuffer.allocate(16 + ipPacket.length).putShort((short) 0)
                    .putShort((short) 772).putShort((short) 6).putLong(0).putShort((short) 0x0800);
            case LINKTYPE_LINUX_SLL2 -> ByteBuffer.allocate(20 + ipPacket.length).putShort((short) 0x0800)
                    .putShort((short) 0).putInt(1).putShort((short) 772).put((byte) 0).put((byte) 6).putLong(0);
            default -> ByteBuffer.allocate(14 + ipPacket.length).put(new byte[12]).putShort((short) 0x0800);
        };
        return b.put(ipPacket).array();
    }

    /** A classic pcap, little endian, microseconds. */
    private static final class PcapWriter {

        private final ByteArrayOutputStream out = new ByteArrayOutputStream();
        private final int linkType;
        private int frames;

        PcapWriter(int linkType) {
            this.linkType = linkType;
            out.writeBytes(ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN).putInt(0xa1b2c3d4)
                    .putShort((short) 2).putShort((short) 4).putInt(0).putInt(0).putInt(65535).putInt(linkType)
                    .array());
        }

        void datagram(byte[] payload) {
            frame(ethernetOrCooked(linkType, ip(UDP, udp(payload), 0)), Integer.MAX_VALUE);
        }

        /** Writes a frame, of which the capture keeps at most {@code snap} bytes. */
        void frame(byte[] frame, int snap) {
            int captured = Math.min(frame.length, snap);
            out.writeBytes(ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putInt(1_800_000_000 + frames++)
                    .putInt(0).putInt(captured).putInt(frame.length).array());
            out.write(frame, 0, captured);
        }

        byte[] bytes() {
            return out.toByteArray();
        }
    }
}
