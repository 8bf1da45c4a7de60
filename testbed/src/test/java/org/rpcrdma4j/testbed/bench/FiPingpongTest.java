package org.rpcrdma4j.testbed.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Reads reports that {@code fi_pingpong} printed (vectors/libfabric/README.md says where they come from). */
class FiPingpongTest {

    @Test
    void readsTheOneWayTimeAndTheBandwidthOfA4KiBRun() throws IOException {
        FiPingpong.Figures figures = FiPingpong.parse(vector("fi_pingpong-udp-4k.txt"));

        assertThat(figures.oneWayUs()).isEqualTo(28.47);
        assertThat(figures.mbPerSec()).isEqualTo(143.89);
    }

    @Test
    void readsRunsWhoseCountsAndTotalsHaveUnits() throws IOException {
        assertThat(FiPingpong.parse(vector("fi_pingpong-udp-8.txt"))).isEqualTo(new FiPingpong.Figures(23.10, 0.35));
        assertThat(FiPingpong.parse(vector("fi_pingpong-udp-1m.txt")))
                .isEqualTo(new FiPingpong.Figures(93422.86, 11.22));
    }

    @Test
    void aClientThatFailedHasNoReport() {
        // What the client prints when no server listens on its control port.
        String refused = "[error] util/pingpong.c:408 : failed to connect: Connection refused\n";

        assertThatThrownBy(() -> FiPingpong.parse(refused)).isInstanceOf(IOException.class)
                .hasMessageContaining("Connection refused");
    }

    @Test
    void aReportCutShortIsNoReport() {
        String header = "bytes   #sent   #ack     total       time     MB/sec    usec/xfer   Mxfers/sec\n";

        assertThatThrownBy(() -> FiPingpong.parse(header)).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> FiPingpong.parse(header + "4k      1k      =1k      7.8m\n"))
                .isInstanceOf(IOException.class);
    }

    @Test
    void aToolThatIsNotThereIsNotFound() {
        assertThat(FiPingpong.find("no-such-fi_pingpong-here")).isEmpty();
        assertThat(FiPingpong.find("/nonexistent/fi_pingpong")).isEmpty();
    }

    private static String vector(String name) throws IOException {
        try (InputStream in = FiPingpongTest.class.getResourceAsStream("/vectors/libfabric/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
