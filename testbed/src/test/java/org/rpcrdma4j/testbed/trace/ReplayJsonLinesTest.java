package org.rpcrdma4j.testbed.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs.NfsDdpPolicy;
import org.rpcrdma4j.xdr.ConnectPrivateData;

/**
 * Replays a cut of the JSON Lines export of v41-backchannel (vectors/linux/pcap/README.md): the CM
 * ConnectRequest and ConnectReply and four exchanges (inline, Reply chunk, Write chunk, backchannel). The
 * export must replay as the pcap's same frames do, and a payload the export elides must be reported as not
 * checkable rather than compared.
 */
class ReplayJsonLinesTest {

    /** The frames of v41-backchannel.pcap the cut holds. */
    private static final Set<Integer> CUT = Set.of(3, 4, 6, 8, 102, 104, 105, 108, 110, 112, 116, 118);

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Replay replay = new Replay(new NfsDdpPolicy());

    @Test
    void aLineThatIsNotAPacketOfTheExportNamesItsLineNumber() throws IOException {
        String first = cut().lines().findFirst().orElseThrow();

        assertThatThrownBy(() -> Capture.readJsonLines(reader(first + "\n{\"frame\": 9, \"opcode\": ")))
                .isInstanceOf(IOException.class).hasMessageStartingWith("line 2 is not JSON");
        assertThatThrownBy(() -> Capture.readJsonLines(reader(first + "\n{\"frame\": \"nine\", \"opcode\": 4}")))
                .isInstanceOf(IOException.class).hasMessageContaining("line 2 is not a packet of the export");
        assertThatThrownBy(() -> Capture.readJsonLines(reader(first.replace("\"payload_len\":256",
                "\"payload_len\":1000000"))))
                .isInstanceOf(IOException.class).hasMessageContaining("not within an IB MTU");
    }

    @Test
    void theExportReplaysAsThePcapsSameFrames() throws IOException {
        Capture fromPcap = Capture.read(new ByteArrayInputStream(pcapFrames(CUT)));
        Capture fromExport = Capture.readJsonLines(reader(cut()));

        Replay.Result pcap = replay.run("pcap", fromPcap);
        Replay.Result export = replay.run("export", fromExport);

        assertThat(export.mismatches()).isEmpty();
        assertThat(export.messages()).isEqualTo(pcap.messages()).isEqualTo(8);
        assertThat(export.matched()).isEqualTo(pcap.matched()).isEqualTo(8);
        Capture.Connection pcapConnection = ReplayTest.only(fromPcap);
        Capture.Connection exportConnection = ReplayTest.only(fromExport);
        assertThat(exportConnection.sends()).hasSameSizeAs(pcapConnection.sends());
        for (int i = 0; i < pcapConnection.sends().size(); i++) {
            assertThat(exportConnection.sends().get(i).bytes()).isEqualTo(pcapConnection.sends().get(i).bytes());
            assertThat(exportConnection.sends().get(i).fromClient())
                    .isEqualTo(pcapConnection.sends().get(i).fromClient());
        }
        assertThat(exportConnection.connect().client()).isEqualTo(pcapConnection.connect().client())
                .isEqualTo(new ConnectPrivateData(true, 4096, 4096));
        assertThat(exportConnection.connect().server()).isEqualTo(pcapConnection.connect().server());
    }

    @Test
    void anElidedSendIsNotCheckableAndTheRestIsReplayed() throws IOException {
        // Frame 102 is the call whose reply (105) comes back through a Reply chunk.
        Replay.Result result = replay.run("cut", Capture.readJsonLines(reader(elide(cut(), 102))));

        assertThat(result.messages()).isEqualTo(8);
        assertThat(result.matched()).isEqualTo(6);
        assertThat(result.mismatches()).containsExactly(
                new Replay.Mismatch(102, 1, "capture", -1, "?",
                        "not checkable: the export elides part of this message's payload"),
                new Replay.Mismatch(105, 1, "capture", 0x17ed2a70L, "?",
                        "a reply to no call in the capture, or to one whose payload the export elides: not checkable"));
    }

    @Test
    void elidedWriteChunkDataIsNotCheckable() throws IOException {
        // Frame 110 is the RDMA Write of the 21 bytes the READ of frame 108 returned (reply: frame 112).
        Replay.Result result = replay.run("cut", Capture.readJsonLines(reader(elide(cut(), 110))));

        assertThat(result.matched()).isEqualTo(7);
        assertThat(result.mismatches()).singleElement().satisfies(m -> {
            assertThat(m.frame()).isEqualTo(112);
            assertThat(m.xid()).isEqualTo(0x18ed2a70L);
            assertThat(m.difference()).contains("not checkable: the export elides the payload of the RDMA Write "
                    + "completed in frame 110");
        });
    }

    /** Keeps the first 4 bytes of a frame's payload_hex, as an export that elides bulk data would. */
    private static String elide(String export, int frame) throws IOException {
        StringBuilder elided = new StringBuilder();
        boolean found = false;
        for (String line : export.split("\n")) {
            ObjectNode packet = (ObjectNode) JSON.readTree(line);
            if (packet.get("frame").asInt() == frame) {
                packet.put("payload_hex", packet.get("payload_hex").asText().substring(0, 8));
                found = true;
            }
            elided.append(JSON.writeValueAsString(packet)).append('\n');
        }
        assertThat(found).isTrue();
        return elided.toString();
    }

    private static BufferedReader reader(String export) {
        return new BufferedReader(new StringReader(export));
    }

    private static String cut() throws IOException {
        try (InputStream in = resource("v41-backchannel.cut.jsonl")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** The pcap with only the given frames, for a replay of exactly what the cut holds. */
    private static byte[] pcapFrames(Set<Integer> frames) throws IOException {
        byte[] pcap;
        try (InputStream in = resource("v41-backchannel.pcap")) {
            pcap = in.readAllBytes();
        }
        ByteBuffer b = ByteBuffer.wrap(pcap).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(b.getInt(0)).isEqualTo(0xa1b2c3d4);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(pcap, 0, 24);
        int number = 0;
        for (int at = 24; at < pcap.length; at += 16 + b.getInt(at + 8)) {
            if (frames.contains(++number)) {
                out.write(pcap, at, 16 + b.getInt(at + 8));
            }
        }
        return out.toByteArray();
    }

    private static InputStream resource(String name) {
        return ReplayJsonLinesTest.class.getResourceAsStream("/vectors/linux/pcap/" + name);
    }
}
