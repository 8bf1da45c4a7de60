package org.rpcrdma4j.testbed.cli;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import org.rpcrdma4j.fabric.FabricOptions;
import org.rpcrdma4j.fabric.FabricProvider;
import org.rpcrdma4j.fabric.Fabrics;
import org.rpcrdma4j.testbed.bench.RpcPeer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code testbed bench rpc-peer}, hidden: the server's process of {@code bench rpc --processes 2}, which starts it
 * and talks to it on its standard input and output ({@link RpcPeer}).
 */
@Command(name = "rpc-peer", hidden = true, description = "The server of 'bench rpc --processes 2', started by it.")
public final class BenchRpcPeerCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--fabric", required = true, paramLabel = "NAME", description = "The fabric of rpcrdma4j.")
    private String fabric;

    @Option(names = "--listen", required = true, paramLabel = "ADDRESS[:PORT]",
            description = "Where the fabric listens; TCP listens on its address.")
    private String listen;

    @Option(names = "--seed", description = "Seed of the fabric.")
    private long seed = 1;

    @Option(names = "--same-thread", description = "Run programs on the thread that received the call.")
    private boolean sameThread;

    @Mixin
    private DeviceProfileOption deviceProfile;

    @Override
    public Integer call() throws Exception {
        FabricProvider provider = Fabrics.named(fabric);
        FabricOptions options = deviceProfile.applyTo(FabricOptions.DEFAULT.withSeed(seed).listening(listen),
                provider, spec);
        RpcPeer.serve(provider, options, sameThread, new BufferedReader(new InputStreamReader(System.in,
                StandardCharsets.UTF_8)), spec.commandLine().getOut());
        return 0;
    }
}
