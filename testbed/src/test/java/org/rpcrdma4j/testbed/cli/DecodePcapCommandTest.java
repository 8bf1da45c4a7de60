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
    void aFileThatIsNotACaptureIsAnError() throws Exception {
        Path junk = Files.writeString(dir.resolve("junk.pcap"), "this text file is not a packet capture");
        StringWriter err = new StringWriter();

        int exit = Main.commandLine().setErr(new PrintWriter(err)).execute("decode", "pcap", junk.toString());

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("not a pcap file");
    }
}
