package org.rpcrdma4j.testbed.cli;

import java.util.concurrent.Callable;
import org.rpcrdma4j.testbed.demo.NfsDemo;
import org.rpcrdma4j.testbed.term.Progress;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code testbed demo}: NFSv3 over RPC-over-RDMA over the simulated EFA device, end to end, in one JVM. */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        description = {
            "Serve the NFSv3 test service over RPC-over-RDMA on the simulated EFA device, all in this JVM, and "
                    + "mount it with the client helper. Files of 16 and 64 MiB are written, committed and read "
                    + "back with 16 READs or WRITEs of 1 MiB in flight (MiB/s, COMMIT timed apart); files of 1 KiB, "
                    + "64 KiB and 1 MiB one call at a time (median time per call); every file's SHA-256 is "
                    + "compared. Then a directory of 2,000 entries is created and listed, a 4,000-byte symbolic "
                    + "link read back, and what moved how is printed (inline, Read, Write and Reply chunks; EFA "
                    + "subprotocols). It uses about ten seconds of CPU time; the figures measure the simulation on "
                    + "this CPU.",
            "Exits 0 when every check passed, 1 otherwise."
        })
public final class DemoCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--seed", description = "Seed of the simulation and the file contents (default: ${DEFAULT-VALUE}).")
    private long seed = 1;

    @Override
    public Integer call() throws Exception {
        boolean interactive = Progress.onTerminal();
        return new NfsDemo(spec.commandLine().getOut(), interactive, seed).run() ? 0 : 1;
    }
}
