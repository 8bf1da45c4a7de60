package org.rpcrdma4j.xdr;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Decodes RDMA Send payloads that the Linux 6.1 NFS client and server put on the wire and checks every
 * field against Wireshark's decode of the same frames (vectors/linux/README.md), then re-encodes the
 * decoded header and compares it with Linux's bytes.
 */
class LinuxTraceVectorsTest {

    private final HeaderDecoder decoder = new HeaderDecoder();

    record Message(String trace, int frame, String direction, long xid, long vers, long credits, String proc,
                   String reads, String writes, String reply, int headerLength, int payloadLength, byte[] bytes) {
        @Override
        public String toString() {
            return trace + "#" + frame + " " + direction + " " + proc;
        }
    }

    record CmPrivateData(String trace, int frame, String msg, byte[] bytes, int version, int flags,
                         boolean remoteInvalidate, int maxSend, int maxRecv) {
        @Override
        public String toString() {
            return trace + "#" + frame + " " + msg;
        }
    }

    static Stream<Message> messages() throws IOException {
        return rows("/vectors/linux/rpcrdma-headers.tsv").stream().map(f -> new Message(f[0], Integer.parseInt(f[1]),
                f[2], Long.parseLong(f[3]), Long.parseLong(f[4]), Long.parseLong(f[5]), f[6], f[7], f[8], f[9],
                Integer.parseInt(f[10]), Integer.parseInt(f[11]), Xdr.hex(f[12])));
    }

    static Stream<CmPrivateData> privateData() throws IOException {
        return rows("/vectors/linux/cm-private-data.tsv").stream().map(f -> new CmPrivateData(f[0],
                Integer.parseInt(f[1]), f[2], Xdr.hex(f[3]), Integer.parseInt(f[4]), Integer.parseInt(f[5]),
                Boolean.parseBoolean(f[6]), Integer.parseInt(f[7]), Integer.parseInt(f[8])));
    }

    private static List<String[]> rows(String resource) throws IOException {
        List<String[]> rows = new ArrayList<>();
        try (InputStream in = LinuxTraceVectorsTest.class.getResourceAsStream(resource);
             BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                if (!line.isBlank() && !line.startsWith("#")) {
                    rows.add(line.split("\t"));
                }
            }
        }
        assertThat(rows).isNotEmpty();
        return rows;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("messages")
    void decodesAsWiresharkDid(Message m) throws RpcRdmaDecodeException {
        DecodedHeader decoded = decoder.decode(m.bytes());
        RpcRdmaHeader h = decoded.header();

        assertThat(h.unsignedXid()).isEqualTo(m.xid());
        assertThat(Integer.toUnsignedLong(h.vers())).isEqualTo(m.vers());
        assertThat(h.unsignedCredits()).isEqualTo(m.credits());
        assertThat(h.proc().name()).isEqualTo(m.proc());
        assertThat(formatReads(h.readList())).isEqualTo(m.reads());
        assertThat(formatWrites(h.writeList())).isEqualTo(m.writes());
        assertThat(h.replyChunk() == null ? "-" : formatSegments(h.replyChunk().segments())).isEqualTo(m.reply());
        assertThat(decoded.headerLength()).isEqualTo(m.headerLength());
        assertThat(decoded.payloadOffset()).isEqualTo(m.headerLength());
        assertThat(decoded.payloadLength()).isEqualTo(m.payloadLength());
        if (h.proc() != Proc.RDMA_ERROR && h.readList().isEmpty() && h.writeList().isEmpty() && h.replyChunk() == null) {
            assertThat(m.headerLength()).as("a short message's header").isEqualTo(HeaderEncoder.NO_CHUNKS_LENGTH);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("messages")
    void reencodesToLinuxBytes(Message m) throws RpcRdmaDecodeException {
        RpcRdmaHeader header = decoder.decode(m.bytes()).header();
        byte[] encoded = new byte[HeaderEncoder.encodedLength(header)];

        assertThat(HeaderEncoder.encode(header, ByteBuffer.wrap(encoded), 0)).isEqualTo(m.headerLength());
        assertThat(encoded).isEqualTo(Arrays.copyOf(m.bytes(), m.headerLength()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("messages")
    void flyweightReadsTheSameFields(Message m) throws RpcRdmaDecodeException {
        RpcRdmaHeader h = decoder.decode(m.bytes()).header();
        // Leading garbage checks that the view honours the offset it is given.
        byte[] shifted = new byte[m.bytes().length + 7];
        System.arraycopy(m.bytes(), 0, shifted, 7, m.bytes().length);
        RpcRdmaHeaderFlyweight view = new RpcRdmaHeaderFlyweight().wrap(ByteBuffer.wrap(shifted), 7, m.bytes().length);

        assertThat(view.xid()).isEqualTo(h.xid());
        assertThat(view.credits()).isEqualTo(h.credits());
        assertThat(view.proc()).isEqualTo(h.proc());
        assertThat(view.payloadOffset()).isEqualTo(7 + m.headerLength());
        assertThat(view.readSegmentCount()).isEqualTo(h.readList().size());
        for (int i = 0; i < view.readSegmentCount(); i++) {
            ReadSegment r = h.readList().get(i);
            assertThat(new ReadSegment(view.readPosition(i),
                    new Segment(view.readHandle(i), view.readLength(i), view.readOffset(i)))).isEqualTo(r);
        }
        assertThat(view.writeChunkCount()).isEqualTo(h.writeList().size());
        for (int c = 0; c < view.writeChunkCount(); c++) {
            List<Segment> segments = h.writeList().get(c).segments();
            assertThat(view.writeSegmentCount(c)).isEqualTo(segments.size());
            for (int s = 0; s < segments.size(); s++) {
                assertThat(new Segment(view.writeHandle(c, s), view.writeLength(c, s), view.writeOffset(c, s)))
                        .isEqualTo(segments.get(s));
            }
        }
        assertThat(view.hasReplyChunk()).isEqualTo(h.hasReplyChunk());
        for (int s = 0; s < view.replySegmentCount(); s++) {
            assertThat(new Segment(view.replyHandle(s), view.replyLength(s), view.replyOffset(s)))
                    .isEqualTo(h.replyChunk().segments().get(s));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("messages")
    void viewBuildsTheChunkModelWiresharkShowed(Message m) throws RpcRdmaDecodeException {
        byte[] shifted = new byte[m.bytes().length + 5];
        System.arraycopy(m.bytes(), 0, shifted, 5, m.bytes().length);
        RpcRdmaHeaderFlyweight view = new RpcRdmaHeaderFlyweight().wrap(ByteBuffer.wrap(shifted), 5, m.bytes().length);
        if (view.proc() == Proc.RDMA_ERROR) {
            return;
        }

        assertThat(formatReads(view.readList())).isEqualTo(m.reads());
        List<ReadSegment> regrouped = new ArrayList<>();
        view.readChunks().forEach(chunk -> regrouped.addAll(chunk.toReadSegments()));
        assertThat(regrouped).containsExactlyInAnyOrderElementsOf(view.readList());
        assertThat(formatWrites(view.writeList())).isEqualTo(m.writes());
        assertThat(view.replyChunk() == null ? "-" : formatSegments(view.replyChunk().segments())).isEqualTo(m.reply());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("privateData")
    void decodesConnectPrivateData(CmPrivateData cm) {
        ConnectPrivateData data = ConnectPrivateData.decode(ByteBuffer.wrap(cm.bytes()), 0, cm.bytes().length).orElseThrow();

        assertThat(cm.version()).isEqualTo(ConnectPrivateData.VERSION);
        assertThat(data.remoteInvalidate()).isEqualTo(cm.remoteInvalidate());
        assertThat(data.remoteInvalidate()).isEqualTo((cm.flags() & ConnectPrivateData.REMOTE_INVALIDATE_FLAG) != 0);
        assertThat(data.maxSendSize()).isEqualTo(cm.maxSend());
        assertThat(data.maxRecvSize()).isEqualTo(cm.maxRecv());
        assertThat(data.toBytes()).isEqualTo(cm.bytes());
    }

    private static String formatReads(List<ReadSegment> reads) {
        if (reads.isEmpty()) {
            return "-";
        }
        List<String> items = new ArrayList<>();
        for (ReadSegment r : reads) {
            items.add(r.unsignedPosition() + ":" + format(r.segment()));
        }
        return String.join(";", items);
    }

    private static String formatWrites(List<WriteChunk> writes) {
        if (writes.isEmpty()) {
            return "-";
        }
        List<String> chunks = new ArrayList<>();
        for (WriteChunk chunk : writes) {
            chunks.add(formatSegments(chunk.segments()));
        }
        return String.join("|", chunks);
    }

    private static String formatSegments(List<Segment> segments) {
        List<String> items = new ArrayList<>();
        for (Segment s : segments) {
            items.add(format(s));
        }
        return String.join(";", items);
    }

    private static String format(Segment s) {
        return s.unsignedHandle() + ":" + s.unsignedLength() + ":" + Long.toUnsignedString(s.offset());
    }
}
