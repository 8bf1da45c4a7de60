package org.rpcrdma4j.testbed.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * What the decode commands share: read stdin line by line, skip blank lines and {@code #} comments,
 * and print one output line per input line as soon as it is decoded. Exit 0 once stdin has been read
 * (bad lines included), 2 if it cannot be read.
 */
@Command
abstract class HexLinesCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    /**
     * Decodes one input line.
     *
     * @param line a non-blank line that is not a comment
     * @return the JSON line to print for it
     */
    abstract String decodeLine(String line);

    @Override
    public final Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        try {
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                if (!line.isBlank() && !line.startsWith("#")) {
                    out.println(decodeLine(line));
                    out.flush();
                }
            }
        } catch (IOException e) {
            spec.commandLine().getErr().println("cannot read stdin: " + e.getMessage());
            return 2;
        }
        return 0;
    }
}
