package org.rpcrdma4j.testbed.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rpcrdma4j.xdr.HeaderDecoder;
import org.rpcrdma4j.xdr.RpcRdmaHeader;

/**
 * Reads Linux captures (vectors/linux/pcap/README.md) and checks that every RDMA Send decodes and that
 * the counts per direction match what the capture's own exporter found.
 */
class RoceSendsTest {

    private static final Pattern COUNT = Pattern.compile("\"((?:client->server|server->client) [A-Za-z_]+)\": (\\d+)");

    @ParameterizedTest
    @ValueSource(strings = {"v3-small", "v41-backchannel", "v42-posz"})
    void everySendDecodesAndTheCountsMatchTheExporter(String scenario) throws Exception {
        List<RdmaSend> sends;
        try (InputStream in = resource(scenario + ".pcap")) {
            sends = RoceSends.read(in);
        }
        Map<String, Long> counted = new TreeMap<>();
        HeaderDecoder decoder = new HeaderDecoder();
        for (RdmaSend send : sends) {
            RpcRdmaHeader h = decoder.decode(send.bytes()).header();
            String d = send.direction() + " ";
            counted.merge(d + h.proc(), 1L, Long::sum);
            if (!h.readList().isEmpty()) {
                counted.merge(d + "msgs_with_read_list", 1L, Long::sum);
                counted.merge(d + "read_segments", (long) h.readList().size(), Long::sum);
            }
            if (!h.writeList().isEmpty()) {
                counted.merge(d + "msgs_with_write_list", 1L, Long::sum);
                counted.merge(d + "write_chunks", (long) h.writeList().size(), Long::sum);
            }
            if (h.hasReplyChunk()) {
                counted.merge(d + "msgs_with_reply_chunk", 1L, Long::sum);
            }
        }

        assertThat(counted).isEqualTo(exporterCounts(scenario));
    }

    /** The exporter's counts of what this test counts, from the rpcrdma_messages of summary.json. */
    private static Map<String, Long> exporterCounts(String scenario) throws IOException {
        String summary;
        try (InputStream in = resource(scenario + ".summary.json")) {
            summary = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        String messages = summary.substring(summary.indexOf("\"rpcrdma_messages\""), summary.indexOf('}',
                summary.indexOf("\"rpcrdma_messages\"")));
        Map<String, Long> counts = new TreeMap<>();
        Matcher m = COUNT.matcher(messages);
        while (m.find()) {
            if (!m.group(1).contains(" rpc_")) {
                counts.put(m.group(1), Long.parseLong(m.group(2)));
            }
        }
        assertThat(counts).isNotEmpty();
        return counts;
    }

    @Test
    void theClientIsTheSideThatAskedToConnect() throws Exception {
        List<RdmaSend> sends;
        try (InputStream in = resource("v3-small.pcap")) {
            sends = RoceSends.read(in);
        }
        // Frame 28: the Linux client's first call, a NULL (vectors/linux of rpcrdma-xdr).
        assertThat(sends.get(0).frame()).isEqualTo(28);
        assertThat(sends.get(0).fromClient()).isTrue();
        assertThat(sends.get(1).fromClient()).isFalse();
    }

    @Test
    void refusesFilesThatAreNotEthernetPcapsOrAreCutShort() throws IOException {
        assertThatThrownBy(() -> read(new byte[] {1, 2, 3})).hasMessageContaining("global header");
        assertThatThrownBy(() -> read(header(0xdeadbeef, 1))).hasMessageContaining("not a pcap");
        assertThatThrownBy(() -> read(header(0xa1b2c3d4, 101))).hasMessageContaining("not Ethernet");
        byte[] huge = ByteBuffer.allocate(40).order(ByteOrder.LITTLE_ENDIAN).put(header(0xa1b2c3d4, 1))
                .putInt(0).putInt(0).putInt(1 << 30).putInt(1 << 30).array();
        assertThatThrownBy(() -> read(huge)).hasMessageContaining("snapshot length");
        byte[] cut = ByteBuffer.allocate(44).order(ByteOrder.LITTLE_ENDIAN).put(header(0xa1b2c3d4, 1))
                .putInt(0).putInt(0).putInt(60).putInt(60).putInt(0).array();
        assertThatThrownBy(() -> read(cut)).hasMessageContaining("cut short");
        assertThat(RoceSends.read(new ByteArrayInputStream(header(0xa1b2c3d4, 1)))).isEmpty();
    }

    private static byte[] header(int magic, int linktype) {
        return ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN).putInt(magic).putShort((short) 2)
                .putShort((short) 4).putInt(0).putInt(0).putInt(65535).putInt(linktype).array();
    }

    private static void read(byte[] file) throws IOException {
        PcapReader.read(new ByteArrayInputStream(file), frame -> { });
    }

    private static InputStream resource(String name) {
        return RoceSendsTest.class.getResourceAsStream("/vectors/linux/pcap/" + name);
    }
}
