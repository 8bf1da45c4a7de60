package org.rpcrdma4j.testbed.cli;

import java.util.concurrent.Callable;
import org.rpcrdma4j.testbed.demo.NfsDemo;
import org.rpcrdma4j.testbed.term.Progress;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code testbed demo}: NFSv3 over RPC-over-RDMA over the simulated EFA device, end to end. */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        description = {
            "Serve the NFSv3 test service over RPC-over-RDMA on the simulated EFA device, mount it with the "
                    + "client helper, write and read back files of 1 KiB to 64 MiB with SHA-256 checks, create and "
                    + "list a directory of 2,000 entries, read a 4,000-byte symbolic link, and print what moved how "
                    + "(inline, Read, Write and Reply chunks; EFA subprotocols; throughput).",
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
