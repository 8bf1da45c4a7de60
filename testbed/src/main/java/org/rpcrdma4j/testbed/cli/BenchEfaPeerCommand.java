package org.rpcrdma4j.testbed.cli;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import org.rpcrdma4j.efa.device.DeviceProvider;
import org.rpcrdma4j.fabric.SocketAddressText;
import org.rpcrdma4j.testbed.bench.EfaEchoPeer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code testbed bench efa-peer}: the far side of {@code bench efa --device udp|verbs} ({@link EfaEchoPeer}). The bench
 * starts it as a second process and talks to it on its standard input and output; on another host it is started by
 * hand with {@code --control PORT}, and the bench ({@code --peer HOST:PORT}) talks to it over one TCP connection.
 */
@Command(
        name = "efa-peer",
        mixinStandardHelpOptions = true,
        description = {
            "The far side of 'bench efa --device udp|verbs': an EFA endpoint on a device of that kind that echoes "
                    + "ping-pongs and takes streams, set up by the bench, and for --device verbs the server half of "
                    + "ibv_rc_pingpong when the bench asks.",
            "Without --control the bench starts it itself. With --control PORT it waits on that TCP port of the "
                    + "--listen address for one 'bench efa --peer HOST:PORT' on another host, serves it, and exits "
                    + "when it disconnects."
        })
public final class BenchEfaPeerCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--device", paramLabel = "udp|verbs", description = "The kind of device (default: "
            + "${DEFAULT-VALUE}).")
    private String device = "udp";

    @Option(names = "--listen", required = true, paramLabel = "ADDRESS[:PORT]", description = "Where the device "
            + "opens, port 0 for any.")
    private String listen;

    @Option(names = "--control", paramLabel = "PORT", description = "Wait for a bench on another host on this TCP "
            + "port instead of talking on standard input and output.")
    private Integer control;

    @Override
    public Integer call() throws Exception {
        DeviceProvider provider = DeviceProvider.find(device).orElseThrow(() -> new ParameterException(
                spec.commandLine(), "the " + device + " device is not on the class path (devices here: "
                        + DeviceProvider.names() + ")"));
        if (control == null) {
            EfaEchoPeer.serve(provider, listen, new BufferedReader(new InputStreamReader(System.in,
                    StandardCharsets.UTF_8)), spec.commandLine().getOut());
            return 0;
        }
        InetSocketAddress at = new InetSocketAddress(SocketAddressText.parse(listen, 0).getAddress(), control);
        try (ServerSocket server = new ServerSocket()) {
            server.bind(at);
            spec.commandLine().getErr().println("waiting for a bench on " + at.getAddress().getHostAddress() + ":"
                    + server.getLocalPort());
            spec.commandLine().getErr().flush();
            try (Socket bench = server.accept()) {
                bench.setTcpNoDelay(true);
                EfaEchoPeer.serve(provider, listen, new BufferedReader(new InputStreamReader(bench.getInputStream(),
                        StandardCharsets.UTF_8)), new PrintWriter(new OutputStreamWriter(bench.getOutputStream(),
                        StandardCharsets.UTF_8)));
            }
        }
        return 0;
    }
}
