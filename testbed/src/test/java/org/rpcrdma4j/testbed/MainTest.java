package org.rpcrdma4j.testbed;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** What every command shares: --verbose raises the log level, --version names the build. */
class MainTest {

    private final InputStream stdin = System.in;
    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    private final Level level = root.getLevel();

    @AfterEach
    void restore() {
        System.setIn(stdin);
        root.setLevel(level);
    }

    @Test
    void verboseRaisesTheLogLevelOnAnyCommand() {
        assertThat(level).isEqualTo(Level.WARN);

        assertThat(decodeNothing("-v")).isZero();
        assertThat(root.getLevel()).isEqualTo(Level.INFO);
        assertThat(decodeNothing("-vv")).isZero();
        assertThat(root.getLevel()).isEqualTo(Level.DEBUG);
        assertThat(decodeNothing("--verbose", "--verbose", "--verbose", "-v")).isZero();
        assertThat(root.getLevel()).isEqualTo(Level.TRACE);
    }

    private int decodeNothing(String... verbose) {
        System.setIn(new ByteArrayInputStream(new byte[0]));
        String[] args = new String[verbose.length + 2];
        args[0] = "decode";
        args[1] = "rpcrdma";
        System.arraycopy(verbose, 0, args, 2, verbose.length);
        return Main.commandLine().setOut(new PrintWriter(new StringWriter())).execute(args);
    }
}
