package org.rpcrdma4j.testbed.cli;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import org.rpcrdma4j.testbed.bench.EfaEchoPeer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code testbed bench efa-peer}, hidden: the second process of {@code bench efa --device udp}, which starts it
 * and talks to it on its standard input and output ({@link EfaEchoPeer}).
 */
@Command(name = "efa-peer", hidden = true, description = "The far side of 'bench efa --device udp', started by it.")
public final class BenchEfaPeerCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--listen", required = true, paramLabel = "ADDRESS[:PORT]", description = "Where the device binds.")
    private String listen;

    @Override
    public Integer call() throws Exception {
        EfaEchoPeer.serve(listen, new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)),
                spec.commandLine().getOut());
        return 0;
    }
}
