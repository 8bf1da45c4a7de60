package org.rpcrdma4j.testbed.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.testbed.Main;
import org.rpcrdma4j.testbed.trace.Capture;
import org.rpcrdma4j.testbed.trace.RdmaSend;
import org.rpcrdma4j.xdr.DecodedHeader;
import org.rpcrdma4j.xdr.HeaderDecoder;
import org.rpcrdma4j.xdr.Proc;

/**
 * {@code demo --pcap} on the simulated EFA network writes a capture that {@code testbed replay} replays with
 * every call paired with its reply, and that tshark's own RPC-over-RDMA and NFS dissectors decode as the
 * testbed's reader does: the same messages with the same XIDs and types, every call of the same program and
 * procedure. tshark must be installed ({@code scripts/test.sh} installs it); without it this test fails,
 * unless {@code -Drpcrdma4j.tshark=optional} says that this run may do without it.
 */
class DemoPcapTest {

    private static final int NFS_PROGRAM = 100003;

    @TempDir
    static Path dir;
    private static Path pcap;

    @BeforeAll
    static void captureADemo() throws IOException {
        Random random = new Random(5);
        List<String> arguments = new ArrayList<>(List.of("demo", "--files"));
        // inline, a chunk of one segment, a chunk of two segments (128 KiB each at most) of one registration
        for (int size : new int[] {3072, 100_000, 200_000}) {
            byte[] bytes = new byte[size];
            random.nextBytes(bytes);
            arguments.add(Files.write(dir.resolve("file-" + size), bytes).toString());
        }
        pcap = dir.resolve("demo.pcap");
        arguments.addAll(List.of("--pcap", pcap.toString()));
        StringWriter out = new StringWriter();

        int exit = Main.commandLine().setOut(new PrintWriter(out)).execute(arguments.toArray(String[]::new));

        assertThat(exit).as(out.toString()).isZero();
        assertThat(out.toString()).endsWith("all checks passed" + System.lineSeparator());
    }

    @Test
    void replayPairsEveryCallWithItsReplyAndEachMessageIsWrittenOnce() throws Exception {
        StringWriter out = new StringWriter();

        int exit = Main.commandLine().setOut(new PrintWriter(out)).execute("replay", "--json", pcap.toString());

        assertThat(exit).as(out.toString()).isZero();
        JsonNode trace = new ObjectMapper().readTree(out.toString()).get("traces").get(0);
        // both fabrics capture into the file, the connection at the server's end only: no message twice
        assertThat(trace.get("connections").asInt()).isEqualTo(1);
        assertThat(trace.get("duplicates").asInt()).isZero();
        assertThat(trace.get("mismatches")).isEmpty();
        int messages = trace.get("messages").asInt();
        assertThat(trace.get("matched").asInt()).isEqualTo(messages);
        int calls = 0;
        Map<String, JsonNode> procedures = new LinkedHashMap<>();
        for (JsonNode procedure : trace.get("procedures")) {
            calls += procedure.get("calls").asInt();
            assertThat(procedure.get("matched").asInt()).as(procedure.toString())
                    .isEqualTo(procedure.get("calls").asInt());
            procedures.put(procedure.get("procedure").asText(), procedure);
        }
        assertThat(messages).isEqualTo(2 * calls);
        // each way of conveying a message is in the capture: Read chunk, Write chunk, Reply chunk
        assertThat(procedures.get("NFSv3 WRITE").get("read").asInt()).isPositive();
        assertThat(procedures.get("NFSv3 READ").get("write").asInt()).isPositive();
        assertThat(procedures.get("NFSv3 READDIRPLUS").get("reply").asInt()).isPositive();
    }

    @Test
    void tsharkDecodesTheMessagesAndCallsTheCaptureHolds() throws Exception {
        requireTshark();
        List<RdmaSend> sends;
        try (InputStream in = Files.newInputStream(pcap)) {
            sends = Capture.read(in).connections().get(0).sends();
        }
        HeaderDecoder decoder = new HeaderDecoder();
        Map<Integer, String> messages = new LinkedHashMap<>();
        Map<String, String> calls = new LinkedHashMap<>();
        Set<String> sharedHandles = new HashSet<>();
        Set<Integer> repliesWithWriteChunks = new HashSet<>();
        for (RdmaSend send : sends) {
            DecodedHeader decoded = decoder.decode(send.bytes());
            messages.put(send.frame(), hex(decoded.header().xid()) + " " + decoded.header().proc().value());
            if (send.fromClient()) {
                // every call of the demo goes as RDMA_MSG: its RPC header leads the inline payload
                assertThat(decoded.header().proc()).isEqualTo(Proc.RDMA_MSG);
                ByteBuffer rpc = ByteBuffer.wrap(send.bytes(), decoded.payloadOffset(), decoded.payloadLength()).slice();
                int program = rpc.getInt(12);
                int procedure = rpc.getInt(20);
                calls.put(hex(rpc.getInt(0)), program + " " + procedure + (program == NFS_PROGRAM ? " " + procedure : ""));
                if (decoded.header().readList().stream().map(read -> read.segment().handle()).distinct().count()
                        < decoded.header().readList().size()) {
                    sharedHandles.add(hex(rpc.getInt(0)));
                }
            } else if (!decoded.header().writeList().isEmpty()) {
                repliesWithWriteChunks.add(send.frame());
            }
        }

        Map<Integer, String> tsharkMessages = new LinkedHashMap<>();
        for (String[] f : tshark("rpcordma", "frame.number", "rpcordma.xid", "rpcordma.msg_type")) {
            tsharkMessages.put(Integer.parseInt(f[0]), f[1] + " " + f[2]);
        }
        Map<String, String> tsharkCalls = new LinkedHashMap<>();
        for (String[] f : tshark("rpc.msgtyp == 0", "rpc.xid", "rpc.program", "rpc.procedure", "nfs.procedure_v3")) {
            tsharkCalls.put(f[0], String.join(" ", f[1], f[2], f[3]).strip());
        }
        Set<Integer> malformed = new HashSet<>();
        for (String[] f : tshark("_ws.malformed", "frame.number")) {
            malformed.add(Integer.parseInt(f[0]));
        }

        assertSame("RPC-over-RDMA message in frame", messages, tsharkMessages);
        // tshark 4.0 keys a chunk's RDMA Reads by handle, so it cannot put together a Read chunk whose segments
        // share one (the EFA fabric registers a chunk once; Linux registers each segment alone): such a call
        // may go undecoded, and one is in this capture
        assertThat(sharedHandles).hasSize(1);
        sharedHandles.forEach(xid -> {
            if (!tsharkCalls.containsKey(xid)) {
                calls.remove(xid);
            }
        });
        assertSame("call of XID", calls, tsharkCalls);
        // tshark 4.0 does not splice a Write chunk's data into the NFS reply, and so calls a READ reply with
        // one malformed, in Linux's captures too (rpcrdma-xdr's vectors/linux/README.md): nothing else may be
        assertThat(repliesWithWriteChunks).containsAll(malformed);
    }

    /** Names the first entry tshark decoded otherwise, rather than printing thousands. */
    private static <K> void assertSame(String what, Map<K, String> ours, Map<K, String> tsharks) {
        for (Map.Entry<K, String> entry : ours.entrySet()) {
            assertThat(tsharks.get(entry.getKey())).as("tshark's decode of the %s %s", what, entry.getKey())
                    .isEqualTo(entry.getValue());
        }
        assertThat(tsharks.keySet()).as("what tshark decoded as a %s", what).isEqualTo(ours.keySet());
    }

    private static String hex(int xid) {
        return String.format("0x%08x", xid);
    }

    /** tshark must be here, unless this run was told it may do without. */
    private static void requireTshark() throws InterruptedException {
        try {
            Process version = new ProcessBuilder("tshark", "-v").redirectErrorStream(true).start();
            version.getInputStream().readAllBytes();
            if (version.waitFor() == 0) {
                return;
            }
        } catch (IOException e) {
            // not installed: below
        }
        String why = "tshark is not installed: scripts/test.sh installs it (Debian's tshark package), which checks "
                + "that tshark's RPC-over-RDMA and NFS dissectors decode what --pcap writes";
        Assumptions.assumeFalse("optional".equals(System.getProperty("rpcrdma4j.tshark")), why);
        fail(why + "; run with -Drpcrdma4j.tshark=optional to skip this check");
    }

    /** @return tshark's fields of each frame the filter displays, tab-separated, the first occurrence of each */
    private static List<String[]> tshark(String filter, String... fields) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("tshark", "-n", "-r", pcap.toString(), "-Y", filter, "-T",
                "fields", "-E", "separator=/t", "-E", "occurrence=f"));
        for (String field : fields) {
            command.add("-e");
            command.add(field);
        }
        Process tshark = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String output = new String(tshark.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(tshark.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(tshark.exitValue()).as("tshark " + String.join(" ", command)).isZero();
        return output.lines().map(line -> line.split("\t", -1)).toList();
    }
}
