package org.rpcrdma4j.testbed.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.testbed.Main;

/** Runs {@code testbed decode pcap} on a Linux capture (vectors/linux/pcap/README.md). */
class DecodePcapCommandTest {

    @TempDir
    Path dir;

    @Test
    void printsEverySendOfTheCaptureWithItsDirection() throws Exception {
        Path capture = dir.resolve("v42-posz.pcap");
        try (InputStream in = getClass().getResourceAsStream("/vectors/linux/pcap/v42-posz.pcap")) {
            Files.copy(in, capture);
        }
        StringWriter out = new StringWriter();

        int exit = Main.commandLine().setOut(new PrintWriter(out)).execute("decode", "pcap", capture.toString());

        assertThat(exit).isZero();
        assertThat(out.toString().lines()).hasSize(76);
        // Frame 124: the NFSv4.2 SETATTR sent as RDMA_NOMSG with two Position-zero Read segments.
        assertThat(out.toString().lines().filter(line -> line.contains("\"frame\":124,")))
                .singleElement().asString()
                .startsWith("{\"trace\":\"v42-posz.pcap\",\"frame\":124,\"direction\":\"client->server\","
                        + "\"message\":{\"xid\":1578654765,\"vers\":1,\"credits\":128,\"proc\":\"RDMA_NOMSG\","
                        + "\"reads\":[{\"position\":0,\"handle\":3286,\"length\":176,");
    }

    @Test
    void aPcapngPrintsWhatItsPcapPrints() throws Exception {
        StringWriter pcap = new StringWriter();
        StringWriter pcapng = new StringWriter();

        assertThat(Main.commandLine().setOut(new PrintWriter(pcap)).execute("decode", "pcap",
                copy("v42-posz.pcap").toString())).isZero();
        assertThat(Main.commandLine().setOut(new PrintWriter(pcapng)).execute("decode", "pcap",
                copy("v42-posz.pcapng").toString())).isZero();

        assertThat(pcapng.toString().replace("v42-posz.pcapng", "v42-posz.pcap")).isEqualTo(pcap.toString())
                .hasLineCount(76);
    }

    @Test
    void aCutCaptureIsPrintedUpToTheCutWithAWarningAndTheNextFileStillDecodes() throws Exception {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();

        int exit = Main.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
                .execute("decode", "pcap", copy("v42-posz.cut.pcapng").toString(), copy("v42-posz.pcap").toString());

        assertThat(exit).isEqualTo(2);
        List<String> cut = out.toString().lines().filter(l -> l.startsWith("{\"trace\":\"v42-posz.cut.pcapng\""))
                .toList();
        // Frame 124 is the last Send before the cut in frame 133.
        assertThat(cut).isNotEmpty().last().asString().contains("\"frame\":124,");
        assertThat(out.toString().lines().filter(l -> l.startsWith("{\"trace\":\"v42-posz.pcap\""))).hasSize(76);
        assertThat(err.toString()).contains("warning: ").contains("v42-posz.cut.pcapng")
                .contains("frame 133 cut short").contains("the 132 frames before it were read");
    }

    @Test
    void aMissingFileIsNamedAndTheNextFileStillDecodes() throws Exception {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();

        int exit = Main.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
                .execute("decode", "pcap", dir.resolve("missing.pcap").toString(), copy("v42-posz.pcap").toString());

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString().strip()).isEqualTo(dir.resolve("missing.pcap") + ": no such file");
        assertThat(out.toString().lines()).hasSize(76);
    }

    private Path copy(String name) throws Exception {
        Path capture = dir.resolve(name);
        try (InputStream in = getClass().getResourceAsStream("/vectors/linux/pcap/" + name)) {
            Files.copy(in, capture);
        }
        return capture;
    }

    @Test
    void aFileThatIsNotACaptureIsAnError() throws Exception {
        Path junk = Files.writeString(dir.resolve("junk.pcap"), "this text file is not a packet capture");
        StringWriter err = new StringWriter();

        int exit = Main.commandLine().setErr(new PrintWriter(err)).execute("decode", "pcap", junk.toString());

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("not a pcap or pcapng file");
    }
}
