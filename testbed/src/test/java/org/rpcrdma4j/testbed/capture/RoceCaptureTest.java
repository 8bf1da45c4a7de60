package org.rpcrdma4j.testbed.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.OptionalInt;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.testbed.trace.Capture;
import org.rpcrdma4j.testbed.trace.PcapReader;
import org.rpcrdma4j.testbed.trace.RdmaSend;
import org.rpcrdma4j.xdr.ConnectPrivateData;
import org.rpcrdma4j.xdr.Segment;

/**
 * What a capture writes reads back through the testbed's own reader of Linux captures: the connection
 * its RDMA-CM exchange names with both sides' private data, each Send whole and from its side, the
 * bytes of each RDMA Write and Read, every packet of them cut at the path MTU with the PSNs an RC
 * requester gives them; and the file header and time stamps as the pcap format has them.
 */
class RoceCaptureTest {

    private static final Instant WHEN = Instant.ofEpochSecond(1_700_000_000L, 123_456_789);
    private static final ConnectPrivateData CLIENT = new ConnectPrivateData(true, 4096, 4096);
    private static final ConnectPrivateData SERVER = new ConnectPrivateData(false, 8192, 4096);

    private final ByteArrayOutputStream file = new ByteArrayOutputStream();

    private RoceCapture capture() throws IOException {
        return new RoceCapture(Path.of("test.pcap"), file, InstantSource.fixed(WHEN));
    }

    private static InetSocketAddress at(String ip, int port) throws IOException {
        return new InetSocketAddress(InetAddress.getByName(ip), port);
    }

    @Test
    void messagesAndRdmaReadBackWholeFromTheirSides() throws Exception {
        Random random = new Random(7);
        byte[] call = new byte[10_000];
        byte[] pulled = new byte[9_000];
        byte[] written = new byte[5_001];
        byte[] reply = new byte[100];
        for (byte[] b : List.of(call, pulled, written, reply)) {
            random.nextBytes(b);
        }
        Segment readChunk = new Segment(0x1234, pulled.length, 0x8000_0000_0000_1000L);
        Segment writeChunk = new Segment(0x5678, written.length, 0x9000_0000_0000_2000L);
        RoceCapture capture = capture();

        WireConnection c = capture.connect(at("fe80::1", 50_000), at("fe80::2", 7), CLIENT, SERVER);
        c.send(true, ByteBuffer.wrap(call), OptionalInt.empty());
        c.read(false, readChunk, ByteBuffer.wrap(pulled));
        c.write(false, writeChunk, ByteBuffer.wrap(written));
        c.send(false, ByteBuffer.wrap(reply), OptionalInt.of(0x5678));
        capture.close();

        Capture read = Capture.read(new ByteArrayInputStream(file.toByteArray()));
        assertThat(read.duplicates()).isZero();
        assertThat(read.connections()).hasSize(1);
        Capture.Connection connection = read.connections().get(0);
        assertThat(connection.endpoints()).isEqualTo("198.18.0.1/QP 0x11 <-> 198.18.0.2/QP 0x12");
        assertThat(connection.connect().client()).isEqualTo(CLIENT);
        assertThat(connection.connect().server()).isEqualTo(SERVER);
        List<RdmaSend> sends = connection.sends();
        assertThat(sends).hasSize(2);
        assertThat(sends.get(0).fromClient()).isTrue();
        assertThat(sends.get(0).bytes()).isEqualTo(call);
        assertThat(sends.get(0).invalidate()).isEmpty();
        assertThat(sends.get(1).fromClient()).isFalse();
        assertThat(sends.get(1).bytes()).isEqualTo(reply);
        assertThat(sends.get(1).invalidate()).hasValue(0x5678);
        assertThat(connection.transfers().gather(readChunk, false, 0, Integer.MAX_VALUE)).isEqualTo(pulled);
        assertThat(connection.transfers().gather(writeChunk, true, 0, Integer.MAX_VALUE)).isEqualTo(written);
    }

    @Test
    void packetsAreCutAtThePathMtuAndNumberedAsAnRcRequesterNumbersThem() throws Exception {
        RoceCapture capture = capture();

        WireConnection c = capture.connect(at("10.0.0.2", 50_000), at("10.0.0.1", 20049), CLIENT, SERVER);
        c.send(true, ByteBuffer.allocate(10_000), OptionalInt.empty());                   // 4096 + 4096 + 1808
        c.read(false, new Segment(1, 9_000, 0), ByteBuffer.allocate(9_000));              // request, 3 responses
        c.write(false, new Segment(2, 5_001, 0), ByteBuffer.allocate(5_001));             // 4096 + 905
        c.send(false, ByteBuffer.allocate(100), OptionalInt.of(2));
        capture.close();

        List<String> packets = new ArrayList<>();
        PcapReader.read(new ByteArrayInputStream(file.toByteArray()), frame -> {
            ByteBuffer b = ByteBuffer.wrap(frame.bytes());
            packets.add(String.format("%08x>%08x %02x qp%x psn%x", b.getInt(26), b.getInt(30),
                    b.get(RoceFrame.BTH_OFFSET), b.getInt(RoceFrame.BTH_OFFSET + 4), b.getInt(RoceFrame.BTH_OFFSET + 8)
                    & 0xFFFFFF));
        });
        // the addresses are the ends' own: two IPv4 addresses apart; the client's QP is 0x11, the server's 0x12
        assertThat(packets).containsExactly(
                "0a000002>0a000001 64 qp1 psn0",                // CM ConnectRequest, UD to QP 1
                "0a000001>0a000002 64 qp1 psn0",                // CM ConnectReply
                "0a000002>0a000001 64 qp1 psn1",                // CM ReadyToUse
                "0a000002>0a000001 00 qp12 psn11000",           // SEND_FIRST
                "0a000002>0a000001 01 qp12 psn11001",           // SEND_MIDDLE
                "0a000002>0a000001 02 qp12 psn11002",           // SEND_LAST
                "0a000001>0a000002 0c qp11 psn12000",           // RDMA_READ_REQUEST: takes PSNs 12000..12002
                "0a000002>0a000001 0d qp12 psn12000",           // READ_RESPONSE_FIRST
                "0a000002>0a000001 0e qp12 psn12001",           // READ_RESPONSE_MIDDLE
                "0a000002>0a000001 0f qp12 psn12002",           // READ_RESPONSE_LAST
                "0a000001>0a000002 06 qp11 psn12003",           // RDMA_WRITE_FIRST
                "0a000001>0a000002 08 qp11 psn12004",           // RDMA_WRITE_LAST
                "0a000001>0a000002 17 qp11 psn12005");          // SEND_ONLY_WITH_INVALIDATE
        assertThat(capture.frames()).isEqualTo(packets.size());
    }

    @Test
    void endsOnOneHostGetAddressesOfTheTestRangeEachTheSameThroughout() throws Exception {
        RoceCapture capture = capture();

        capture.connect(at("127.0.0.1", 40_000), at("127.0.0.1", 35_177), CLIENT, SERVER);
        capture.connect(at("127.0.0.1", 40_001), at("127.0.0.1", 35_177), CLIENT, SERVER);
        capture.close();

        Capture read = Capture.read(new ByteArrayInputStream(file.toByteArray()));
        assertThat(read.connections()).extracting(Capture.Connection::endpoints).containsExactly(
                "198.18.0.1/QP 0x11 <-> 198.18.0.2/QP 0x12", "198.18.0.3/QP 0x13 <-> 198.18.0.2/QP 0x14");
    }

    @Test
    void theFileHasTheClassicPcapHeaderWithNanosecondStamps() throws Exception {
        RoceCapture capture = capture();
        capture.connect(at("10.0.0.2", 1), at("10.0.0.1", 2), CLIENT, SERVER);
        capture.close();

        // magic a1b23c4d, version 2.4, zone 0, accuracy 0, snaplen 262144, LINKTYPE_ETHERNET; little endian
        // then the first record: 1700000000 s, 123456789 ns, 322 bytes captured of 322 (a CM MAD's frame)
        assertThat(HexFormat.of().formatHex(file.toByteArray(), 0, 40)).isEqualTo(
                "4d3cb2a1" + "02000400" + "00000000" + "00000000" + "00000400" + "01000000"
                        + "00f15365" + "15cd5b07" + "42010000" + "42010000");
    }

    @Test
    void aFileThatCannotBeCreatedIsNamedByItsError(@TempDir Path dir) {
        assertThatThrownBy(() -> RoceCapture.create(dir.resolve("absent/x.pcap")))
                .isInstanceOf(NoSuchFileException.class);
    }

    @Test
    void aFailedWriteStopsTheCaptureAndCloseSaysWhere() throws Exception {
        OutputStream full = new OutputStream() {
            private int room = 24 + 16 + 322;             // the header and one frame

            @Override
            public void write(int b) throws IOException {
                if (room-- <= 0) {
                    throw new IOException("No space left on device");
                }
            }
        };
        RoceCapture capture = new RoceCapture(Path.of("full.pcap"), full, InstantSource.fixed(WHEN));

        capture.connect(at("10.0.0.2", 1), at("10.0.0.1", 2), CLIENT, SERVER);

        assertThat(capture.frames()).isEqualTo(1);
        assertThatThrownBy(capture::close).isInstanceOf(IOException.class)
                .hasMessage("writing the capture full.pcap failed after 1 frames: No space left on device");
    }
}
