package org.rpcrdma4j.testbed.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.testbed.Main;

/** Runs {@code testbed replay} on Linux captures (vectors/linux/pcap/README.md). */
class ReplayCommandTest {

    @TempDir
    Path dir;

    @Test
    void printsOneRowPerTraceAndExitsZeroWhenEverythingMatched() throws Exception {
        StringWriter out = new StringWriter();

        int exit = Main.commandLine().setOut(new PrintWriter(out)).execute("replay", copy("v3-small").toString(),
                copy("v42-posz").toString());

        assertThat(exit).isZero();
        assertThat(out.toString().lines()).hasSize(3);
        assertThat(out.toString().lines().skip(1)).containsExactly(
                String.format("%-20s %8d %8d %10d  %s", "v3-small", 148, 148, 0, "-"),
                String.format("%-20s %8d %8d %10d  %s", "v42-posz", 76, 76, 0, "-"));
    }

    @Test
    void printsJson() throws Exception {
        StringWriter out = new StringWriter();

        int exit = Main.commandLine().setOut(new PrintWriter(out)).execute("replay", "--json",
                copy("v41-backchannel").toString());

        assertThat(exit).isZero();
        assertThat(out.toString().strip()).startsWith("{\"traces\":[{\"trace\":\"v41-backchannel\",\"connections\":1,"
                + "\"duplicates\":0,\"messages\":70,\"matched\":70,\"mismatches\":[],\"linuxBugs\":[],\"procedures\":["
                + "{\"procedure\":\"NFSv4 NULL\",\"calls\":1,\"matched\":1,\"inline\":1,\"read\":0,\"write\":0,"
                + "\"reply\":0,\"positionZero\":0},{\"procedure\":\"NFSv4 EXCHANGE_ID\",\"calls\":2,\"matched\":2,"
                + "\"inline\":0,\"read\":0,\"write\":0,\"reply\":2,\"positionZero\":0},")
                // The READ's data went in a Write chunk, the backchannel call inline, and all matched.
                .contains("{\"procedure\":\"NFSv4 READ\",\"calls\":2,\"matched\":2,\"inline\":0,\"read\":0,"
                        + "\"write\":2,\"reply\":0,\"positionZero\":0}")
                .contains("{\"procedure\":\"NFSv4 CB_COMPOUND\",\"calls\":1,\"matched\":1,\"inline\":1,")
                .endsWith("]}]}");
    }

    @Test
    void replaysAPcapngAsItsPcap() throws Exception {
        StringWriter out = new StringWriter();

        int exit = Main.commandLine().setOut(new PrintWriter(out)).execute("replay", copy("v42-posz", ".pcapng")
                .toString());

        assertThat(exit).isZero();
        assertThat(out.toString().lines().skip(1)).containsExactly(
                String.format("%-20s %8d %8d %10d  %s", "v42-posz", 76, 76, 0, "-"));
    }

    @Test
    void replaysACutCaptureUpToTheCutWarnsAndGoesOnWithTheNextAfterAMissingOne() throws Exception {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();

        int exit = Main.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute("replay",
                copy("v42-posz.cut", ".pcapng").toString(), dir.resolve("missing.pcap").toString(),
                copy("v3-small").toString());

        assertThat(exit).isEqualTo(2);
        assertThat(out.toString().lines().skip(1).map(line -> line.split(" +")[0]))
                .containsExactly("v42-posz.cut", "v3-small");
        assertThat(err.toString().lines()).containsExactly(
                "warning: " + dir.resolve("v42-posz.cut.pcapng") + " appears to be cut short: frame 133 cut short: "
                        + "1028 of 1116 bytes of its block; the 132 frames before it were read",
                dir.resolve("missing.pcap") + ": no such file");
    }

    @Test
    void exitsTwoWhenACaptureCannotBeRead() throws Exception {
        Path junk = Files.writeString(dir.resolve("junk.pcap"), "not a capture");
        StringWriter err = new StringWriter();

        int exit = Main.commandLine().setErr(new PrintWriter(err)).execute("replay", junk.toString());

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("cannot read").contains("junk.pcap");
    }

    private Path copy(String trace) throws Exception {
        return copy(trace, ".pcap");
    }

    private Path copy(String trace, String suffix) throws Exception {
        Path capture = dir.resolve(trace + suffix);
        try (InputStream in = getClass().getResourceAsStream("/vectors/linux/pcap/" + trace + suffix)) {
            Files.copy(in, capture);
        }
        return capture;
    }
}
