package org.rpcrdma4j.testbed.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import org.rpcrdma4j.testbed.term.Terminal;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * What the decode commands share: read stdin line by line, skip blank lines and {@code #} comments,
 * and print one output line per input line as soon as it is decoded. Exit 0 once stdin has been read
 * (bad lines included, unless {@code --strict}), 2 if it cannot be read. Someone who runs a decoder at a
 * terminal without piping anything in is told that it waits for hex on stdin.
 */
@Command
abstract class HexLinesCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--strict", description = "Exit 1 if any line did not decode (for scripts).")
    private boolean strict;

    /**
     * What one input line decoded to.
     *
     * @param json the JSON line to print for it
     * @param ok   whether it decoded (false for a line that is not hex or breaks a rule)
     */
    record Decoded(String json, boolean ok) {

        static Decoded good(String json) {
            return new Decoded(json, true);
        }

        static Decoded bad(String json) {
            return new Decoded(json, false);
        }
    }

    /**
     * Decodes one input line.
     *
     * @param line a non-blank line that is not a comment
     * @return the JSON line to print for it, and whether it decoded
     */
    abstract Decoded decodeLine(String line);

    /** @return the command, as picocli injected it */
    CommandSpec spec() {
        return spec;
    }

    /** @return whether a line that did not decode makes the exit code 1 */
    boolean strict() {
        return strict;
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (Terminal.stdinIsTerminal()) {
            spec.commandLine().getErr().println("reading hex from stdin, one message per line "
                    + "(end with Ctrl-D; --help for more)");
            spec.commandLine().getErr().flush();
        }
        boolean allOk = true;
        try {
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                if (!line.isBlank() && !line.startsWith("#")) {
                    Decoded decoded = decodeLine(line);
                    allOk &= decoded.ok();
                    out.println(decoded.json());
                    out.flush();
                }
            }
        } catch (IOException e) {
            spec.commandLine().getErr().println("cannot read stdin: " + e.getMessage());
            return 2;
        }
        return strict && !allOk ? 1 : 0;
    }
}
