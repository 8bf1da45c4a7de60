package org.rpcrdma4j.testbed.term;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Whether a person sits at the other end of the standard streams. */
public final class Terminal {

    private static final Path STDIN = Path.of("/proc/self/fd/0");

    private Terminal() {
    }

    /**
     * @return whether stdin is a terminal: on Linux, where /proc tells what file descriptor 0 is, a tty
     *         or pseudo-terminal; elsewhere, whether the JVM has a console
     */
    public static boolean stdinIsTerminal() {
        if (Files.isSymbolicLink(STDIN)) {
            try {
                String target = Files.readSymbolicLink(STDIN).toString();
                return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty") || target.equals("/dev/console");
            } catch (IOException | UnsupportedOperationException | SecurityException e) {
                return false;
            }
        }
        return System.console() != null;
    }
}
