package org.rpcrdma4j.testbed.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.testbed.Main;

/** Runs {@code testbed decode rpcrdma} in-process on Linux messages and on bad ones. */
class DecodeRpcRdmaCommandTest {

    /** v3-small frame 28: the Linux client's NFS v3 NULL call, inline, no chunks. */
    private static final String NULL_CALL = "fb40e883000000010000008000000000000000000000000000000000"
            + "fb40e8830000000000000002000186a3000000030000000000000000000000000000000000000000";
    /** v3-small frame 63: the Linux server's RDMA_NOMSG reply echoing a 3-segment Reply chunk. */
    private static final String NOMSG_REPLY = "0341e8830000000100000040000000010000000000000000000000010000000300000cf0000000b8"
            + "0341e8837d24700000000b89000000000341e88315d3f00000000a74000000000341e8837d247100";
    /** v3-write-default frame 82 header: a WRITE with two Read segments at position 112 (payload elided). */
    private static final String WRITE_CALL = "1c1c1547000000010000008000000000000000010000007000000c50000200001c1c15471640c000"
            + "000000010000007000000b4f000200001c1c154716924000000000000000000000000000";

    private final InputStream stdin = System.in;

    @AfterEach
    void restoreStdin() {
        System.setIn(stdin);
    }

    private String run(String input, int expectedExit) {
        System.setIn(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)));
        StringWriter out = new StringWriter();
        int exit = Main.commandLine().setOut(new PrintWriter(out)).execute("decode", "rpcrdma");
        assertThat(exit).isEqualTo(expectedExit);
        return out.toString();
    }

    @Test
    void strictFailsTheExitCodeWhenALineIsRejectedOrNotHexAndPrintsEveryLineAllTheSame() {
        for (String bad : new String[] {WRITE_CALL, "not hex"}) {
            System.setIn(new ByteArrayInputStream((NULL_CALL + "\n" + bad + "\n" + NULL_CALL + "\n")
                    .getBytes(StandardCharsets.UTF_8)));
            StringWriter out = new StringWriter();

            int exit = Main.commandLine().setOut(new PrintWriter(out)).execute("decode", "rpcrdma", "--strict");

            assertThat(exit).isEqualTo(1);
            assertThat(out.toString().lines()).hasSize(3);
        }
        System.setIn(new ByteArrayInputStream((NULL_CALL + "\n").getBytes(StandardCharsets.UTF_8)));
        assertThat(Main.commandLine().setOut(new PrintWriter(new StringWriter()))
                .execute("decode", "rpcrdma", "--strict")).isZero();
    }

    @Test
    void decodesLinuxMessages() {
        String out = run(NULL_CALL + "\n\n" + NOMSG_REPLY + "\n", 0);

        assertThat(out.lines()).containsExactly(
                "{\"xid\":4215335043,\"vers\":1,\"credits\":128,\"proc\":\"RDMA_MSG\",\"reads\":[],\"writes\":[],"
                        + "\"reply\":null,\"headerLength\":28,\"payloadLength\":40}",
                "{\"xid\":54651011,\"vers\":1,\"credits\":64,\"proc\":\"RDMA_NOMSG\",\"reads\":[],\"writes\":[],"
                        + "\"reply\":[{\"handle\":3312,\"length\":184,\"offset\":234724307037876224},"
                        + "{\"handle\":2953,\"length\":0,\"offset\":234724305304547328},"
                        + "{\"handle\":2676,\"length\":0,\"offset\":234724307037876480}],"
                        + "\"headerLength\":80,\"payloadLength\":0}");
    }

    @Test
    void readChunkPastTheInlinePartIsRejectedWithItsRule() {
        // The Linux WRITE header without its 112 inline bytes: the Read chunk at 112 lies outside.
        String out = run(WRITE_CALL + "\n", 0);

        assertThat(out.lines()).singleElement().asString()
                .startsWith("{\"reject\":\"ERR_CHUNK\",\"rule\":\"read-chunk-range\",\"message\":\"");
    }

    @Test
    void printsTheAnswerForEachBadLineAndGoesOn() {
        String out = run(String.join("\n",
                "0102",
                "fb40e883000000020000008000000000000000000000000000000000",
                "fb40e88300000001000000800000000300000000",
                "fb40e883000000010000004000000004000000010000000100000001",
                "fb40e88300000001000000400000000400000002",
                "not hex",
                NULL_CALL) + "\n", 0);

        assertThat(out.lines()).hasSize(7);
        assertThat(out.lines().toList().get(0)).startsWith("{\"reject\":\"DROP\",\"rule\":\"no-xid\"");
        assertThat(out.lines().toList().get(1)).startsWith("{\"reject\":\"ERR_VERS\",\"rule\":\"vers\"");
        assertThat(out.lines().toList().get(2)).startsWith("{\"reject\":\"DROP\",\"rule\":\"recv-done\"");
        assertThat(out.lines().toList().get(3)).isEqualTo("{\"xid\":4215335043,\"vers\":1,\"credits\":64,"
                + "\"proc\":\"RDMA_ERROR\",\"reads\":[],\"writes\":[],\"reply\":null,\"headerLength\":28,"
                + "\"payloadLength\":0,\"error\":\"ERR_VERS\",\"low\":1,\"high\":1}");
        assertThat(out.lines().toList().get(4)).endsWith("\"headerLength\":20,\"payloadLength\":0,\"error\":\"ERR_CHUNK\"}");
        assertThat(out.lines().toList().get(5)).startsWith("{\"error\":\"hex\",\"message\":\"not a hex digit");
        assertThat(out.lines().toList().get(6)).startsWith("{\"xid\":4215335043,");
    }

    @Test
    void helpDescribesTheOutput() {
        StringWriter out = new StringWriter();
        int exit = Main.commandLine().setOut(new PrintWriter(out)).execute("decode", "rpcrdma", "--help");

        assertThat(exit).isZero();
        assertThat(out.toString()).contains("Usage: testbed decode rpcrdma").contains("reject");
    }
}
