package org.rpcrdma4j.testbed.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.testbed.Main;

/** Runs {@code testbed decode efa} in-process on golden libfabric packets and on bad lines. */
class DecodeEfaCommandTest {

    /** Golden EAGER_RTW/plain: one rma_iov, 16 bytes of data. */
    private static final String EAGER_RTW = "460400000100000000443322117f00004023010000000000efbeadde00000000"
            + "d0d1d2d3d4d5d6d7d8d9dadbdcdddedf";
    /** Golden HANDSHAKE/connid+device_version: what libfabric 1.19 to 2.6.0 sends when host_id is 0. */
    private static final String HANDSHAKE = "09040280040000006b00000000000000ddccbbaa00000000a1ef000000000000";
    /** Golden EAGER_MSGRTM/raw_addr: the 40-byte raw-address header with addr_len 36. */
    private static final String EAGER_MSGRTM_RAW_ADDR = "400405004433221124000000fe800000000000000a1b2cfffe3d4e5f"
            + "34120000ddccbbaa000000000000000000000000d0d1d2d3d4d5d6d7d8d9dadbdcdddedf";
    /** Golden LONGREAD_MSGRTM/2read_iov+connid: two read_iov entries after the 4-byte connid header. */
    private static final String LONGREAD_MSGRTM = "800404804433221100112233445566772423222102000000ddccbbaa"
            + "0000aa55aa550000001122334455667701efcdab000000000000bb55bb550000001000000000000002efcdab00000000";
    /** Golden READRSP/connid: recv_id at offset 8, send_id at 12 (DISCREPANCIES.md A1). */
    private static final String READRSP = "05040080ddccbbaa34333231242322211000000000000000"
            + "d0d1d2d3d4d5d6d7d8d9dadbdcdddedf";

    private final InputStream stdin = System.in;

    @AfterEach
    void restoreStdin() {
        System.setIn(stdin);
    }

    private static String run(InputStream input, int expectedExit) {
        System.setIn(input);
        StringWriter out = new StringWriter();
        int exit = Main.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(new StringWriter()))
                .execute("decode", "efa");
        assertThat(exit).isEqualTo(expectedExit);
        return out.toString();
    }

    private static String run(String input) {
        return run(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), 0);
    }

    @Test
    void decodesGoldenPackets() {
        String out = run(String.join("\n", EAGER_RTW, "", HANDSHAKE, "# a comment", EAGER_MSGRTM_RAW_ADDR,
                LONGREAD_MSGRTM, READRSP) + "\n");

        assertThat(out.lines()).containsExactly(
                "{\"type\":\"EAGER_RTW\",\"typeId\":70,\"version\":4,\"flags\":0,\"fields\":{\"rma_iov_count\":1,"
                        + "\"rma_iov\":[{\"addr\":139711564956672,\"len\":74560,\"key\":3735928559}]},"
                        + "\"headerLength\":32,\"payloadLength\":16}",
                "{\"type\":\"HANDSHAKE\",\"typeId\":9,\"version\":4,\"flags\":32770,\"fields\":{\"nextra_p3\":4,"
                        + "\"extra_info\":[107],\"opt_connid\":2864434397,\"opt_device_version\":61345},"
                        + "\"headerLength\":32,\"payloadLength\":0}",
                "{\"type\":\"EAGER_MSGRTM\",\"typeId\":64,\"version\":4,\"flags\":5,\"fields\":{\"msg_id\":287454020,"
                        + "\"opt_raw_addr\":{\"addr_len\":36,\"gid\":\"fe800000000000000a1b2cfffe3d4e5f\",\"qpn\":4660,"
                        + "\"pad\":0,\"qkey\":2864434397,\"next\":0,\"trailing_bytes\":\"00000000\"}},"
                        + "\"headerLength\":48,\"payloadLength\":16}",
                "{\"type\":\"LONGREAD_MSGRTM\",\"typeId\":128,\"version\":4,\"flags\":32772,\"fields\":{"
                        + "\"msg_id\":287454020,\"msg_length\":8603657889541918976,\"send_id\":555885348,"
                        + "\"read_iov_count\":2,\"opt_connid\":2864434397,\"read_iov\":["
                        + "{\"addr\":94190070005760,\"len\":8603657889541918976,\"key\":2882400001},"
                        + "{\"addr\":94263085563904,\"len\":4096,\"key\":2882400002}]},"
                        + "\"headerLength\":28,\"payloadLength\":0}",
                "{\"type\":\"READRSP\",\"typeId\":5,\"version\":4,\"flags\":32768,\"fields\":{\"connid\":2864434397,"
                        + "\"recv_id\":825373492,\"send_id\":555885348,\"seg_length\":16},"
                        + "\"headerLength\":24,\"payloadLength\":16}");
    }

    @Test
    void printsTheErrorForEachBadLineAndGoesOn() {
        String out = run(String.join("\n",
                "not hex",
                "4003",
                "46030000",
                "0604000000000000",
                "09040000020000006b00000000000000",
                "460400000500000000",
                EAGER_RTW) + "\n");

        assertThat(out.lines()).containsExactly(
                "{\"error\":\"hex\",\"message\":\"not a hex digit at column 1: 'n'\"}",
                "{\"error\":\"truncated\",\"message\":\"packet of 2 bytes is shorter than the 4-byte base header\"}",
                "{\"error\":\"bad-version\",\"message\":\"version 3 is not protocol version 4\"}",
                "{\"error\":\"unknown-type\",\"message\":\"packet type 6 is not defined by protocol v4\"}",
                "{\"error\":\"nextra-p3\",\"message\":\"nextra_p3 2 is below the minimum 3\"}",
                "{\"error\":\"iov-count\",\"message\":\"EAGER_RTW rma_iov_count 5 exceeds the limit 4\"}",
                "{\"type\":\"EAGER_RTW\",\"typeId\":70,\"version\":4,\"flags\":0,\"fields\":{\"rma_iov_count\":1,"
                        + "\"rma_iov\":[{\"addr\":139711564956672,\"len\":74560,\"key\":3735928559}]},"
                        + "\"headerLength\":32,\"payloadLength\":16}");
    }

    @Test
    void exitsWithTwoWhenStdinCannotBeRead() {
        InputStream broken = new InputStream() {
            @Override
            public int read() throws IOException {
                throw new IOException("device gone");
            }
        };

        assertThat(run(broken, 2)).isEmpty();
    }
}
