package org.rpcrdma4j.testbed.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class IbvRcPingpongTest {

    @Test
    void readsARoundTripAsTwoOneWayTimesAndMegabitsAsMegabytes() throws IOException {
        FiPingpong.Figures figures = IbvRcPingpong.parse(vector("ibv_rc_pingpong-rxe-4k.txt"));

        // "200 iters in 3.16 seconds = 15823.44 usec/iter", "1638400 bytes in 3.16 seconds = 4.14 Mbit/sec"
        assertThat(figures.oneWayUs()).isCloseTo(7911.72, within(1e-9));
        assertThat(figures.mbPerSec()).isCloseTo(0.5175, within(1e-9));
    }

    @Test
    void aClientThatFoundNoServerHasNoReport() {
        assertThatThrownBy(() -> IbvRcPingpong.parse("Couldn't connect to 10.99.0.1:18515\n"))
                .isInstanceOf(IOException.class).hasMessageContaining("no ibv_rc_pingpong report");
    }

    private static String vector(String name) throws IOException {
        try (InputStream in = IbvRcPingpongTest.class.getResourceAsStream("/vectors/rdma-core/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
