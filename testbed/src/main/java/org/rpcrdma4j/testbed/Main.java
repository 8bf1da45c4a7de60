package org.rpcrdma4j.testbed;

import org.rpcrdma4j.testbed.cli.BenchCommand;
import org.rpcrdma4j.testbed.cli.DecodeCommand;
import org.rpcrdma4j.testbed.cli.DemoCommand;
import org.rpcrdma4j.testbed.cli.ReplayCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of {@code testbed.jar}: one picocli subcommand per task. */
@Command(
        name = "testbed",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "rpcrdma4j testbed: the NFS/RDMA demo, packet decoders, benchmarks.",
        subcommands = {DemoCommand.class, DecodeCommand.class, ReplayCommand.class, BenchCommand.class, CommandLine.HelpCommand.class})
public final class Main {

    private Main() {
    }

    /**
     * Runs the command line and exits with its exit code.
     *
     * @param args the command line arguments
     */
    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /**
     * Builds the command line, for {@link #main} and for tests that run commands in-process.
     *
     * @return a fresh picocli command line for the {@code testbed} command
     */
    public static CommandLine commandLine() {
        return new CommandLine(new Main());
    }
}
