package org.rpcrdma4j.testbed.cli;

import picocli.CommandLine.Command;

/** {@code testbed bench}: groups the side-by-side benchmarks, one subcommand per layer. */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        description = "Run a benchmark beside a peer measured in the same run.",
        subcommands = {BenchEfaCommand.class, BenchRpcCommand.class, BenchEfaPeerCommand.class,
            BenchRpcPeerCommand.class})
public final class BenchCommand {
}
