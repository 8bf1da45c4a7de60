package org.rpcrdma4j.testbed.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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

    /**
     * The exporter's counts of what this test counts: the per-direction RPC-over-RDMA counts of summary.json's
     * rpcrdma_messages (not its RPC call/reply or backchannel counts).
     */
    private static Map<String, Long> exporterCounts(String scenario) throws IOException {
        JsonNode messages;
        try (InputStream in = resource(scenario + ".summary.json")) {
            messages = new ObjectMapper().readTree(in).required("rpcrdma_messages");
        }
        Map<String, Long> counts = new TreeMap<>();
        for (Map.Entry<String, JsonNode> count : messages.properties()) {
            String key = count.getKey();
            if ((key.startsWith("client->server ") || key.startsWith("server->client ")) && !key.contains(" rpc_")) {
                counts.put(key, count.getValue().asLong());
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
    void refusesFilesThatAreNotPcapsOfALinkTypeItReadsOrAreCutShort() throws IOException {
        assertThatThrownBy(() -> read(new byte[] {1, 2, 3})).hasMessageContaining("file header");
        assertThatThrownBy(() -> read(header(0xdeadbeef, 1))).hasMessageContaining("not a pcap or pcapng file");
        assertThatThrownBy(() -> read(header(0xa1b2c3d4, 101))).hasMessageContaining("link type 101 is none of those this reads");
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
