package org.rpcrdma4j.testbed.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.rpcrdma4j.testbed.trace.TruncatedCaptureException;

/**
 * How the commands that read capture files report a file they cannot read, or one that is cut short,
 * before going on with the next file, as tshark does; and whether any file had such a problem.
 */
final class CaptureFiles {

    private final PrintWriter err;
    private boolean troubled;

    CaptureFiles(PrintWriter err) {
        this.err = err;
    }

    /** Reports a file that could not be read at all. */
    void cannotRead(Path file, IOException e) {
        troubled = true;
        if (e instanceof NoSuchFileException) {
            err.println(file + ": no such file");
        } else if (e instanceof AccessDeniedException) {
            err.println(file + ": permission denied");
        } else {
            err.println("cannot read " + file + ": " + e.getMessage());
        }
        err.flush();
    }

    /** Warns of a capture that ends inside a frame or block, after what came before it was used. */
    void cutShort(Path file, TruncatedCaptureException e) {
        troubled = true;
        err.println("warning: " + file + " appears to be cut short: " + e.getMessage() + "; the "
                + (e.frame() - 1) + " frames before it were read");
        err.flush();
    }

    /** @return whether a file could not be read or was cut short */
    boolean troubled() {
        return troubled;
    }
}
