package org.rpcrdma4j.testbed;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.rpcrdma4j.testbed.cli.BenchCommand;
import org.rpcrdma4j.testbed.cli.DecodeCommand;
import org.rpcrdma4j.testbed.cli.DemoCommand;
import org.rpcrdma4j.testbed.cli.FabricsCommand;
import org.rpcrdma4j.testbed.cli.ReplayCommand;
import org.rpcrdma4j.testbed.cli.ServeCommand;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine;

/** Entry point of {@code testbed.jar}: one picocli subcommand per task. */
@Command(
        name = "testbed",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "rpcrdma4j testbed: the NFS/RDMA demo, packet decoders, benchmarks.",
        subcommands = {DemoCommand.class, ServeCommand.class, FabricsCommand.class, DecodeCommand.class, ReplayCommand.class, BenchCommand.class, CommandLine.HelpCommand.class})
public final class Main {

    private static final Level[] VERBOSITY = {Level.WARN, Level.INFO, Level.DEBUG, Level.TRACE};

    private Main() {
    }

    /**
     * Raises the log level of the whole process, which is warnings and errors only by default.
     *
     * @param verbose one entry per {@code -v}
     */
    @Option(names = {"-v", "--verbose"}, scope = ScopeType.INHERIT,
            description = "Log more, on stderr: -v info, -vv debug, -vvv trace (default: warnings and errors).")
    void setVerbose(boolean[] verbose) {
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.setLevel(VERBOSITY[Math.min(verbose.length, VERBOSITY.length - 1)]);
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
