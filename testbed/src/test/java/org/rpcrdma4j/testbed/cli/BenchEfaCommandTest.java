package org.rpcrdma4j.testbed.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.testbed.Main;

/** Runs {@code testbed bench efa} small: every size is measured and every message arrives intact. */
class BenchEfaCommandTest {

    private static final Pattern RESULT = Pattern.compile(
            "\\{\"test\":\"(\\w+)\",\"size\":(\\d+),\"efa\":([0-9.]+),\"memcpy\":([0-9.]+),\"ratio\":([0-9.]+),"
                    + "\"memcpyOneBuffer\":([0-9.]+),\"unit\":\"([^\"]+)\",\"verified\":(true|false)}");

    @Test
    void measuresEverySizeWithIntactData() {
        StringWriter out = new StringWriter();
        int exit = Main.commandLine().setOut(new PrintWriter(out))
                .execute("bench", "efa", "--iterations", "20", "--stream-bytes", "16777216", "--json", "--seed", "7");

        assertThat(exit).isZero();
        List<String> rows = new ArrayList<>();
        Matcher m = RESULT.matcher(out.toString());
        while (m.find()) {
            rows.add(m.group(1) + " " + m.group(2) + " " + m.group(7) + " " + m.group(8));
            assertThat(Double.parseDouble(m.group(3))).isPositive();
            assertThat(Double.parseDouble(m.group(4))).isPositive();
            assertThat(Double.parseDouble(m.group(6))).isPositive();
        }
        assertThat(rows).containsExactly(
                "pingpong 8 us true", "pingpong 4096 us true", "pingpong 65536 us true",
                "stream 65536 MB/s true", "stream 1048576 MB/s true", "stream 16777216 MB/s true");
    }

    @Test
    void refusesNonPositiveCounts() {
        StringWriter err = new StringWriter();
        int exit = Main.commandLine().setErr(new PrintWriter(err)).execute("bench", "efa", "--iterations", "0");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("must be positive");
    }
}
