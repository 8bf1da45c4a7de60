package org.rpcrdma4j.testbed.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeoutException;

/**
 * libfabric's {@code fi_pingpong} (fabtests; Debian's {@code libfabric-bin}) on its UDP provider under the
 * {@code ofi_rxd} utility provider, which gives RDM endpoints over UDP, the peer {@code bench efa --device udp}
 * measures its endpoints beside: a server and a client on loopback, the client's report parsed.
 *
 * <p>{@code fi_pingpong} only ping-pongs: one message of the size each way per iteration, the next sent when
 * the last arrived. It reports {@code usec/xfer}, the time per message one way, and {@code MB/sec}, the bytes of
 * both directions over the run's time (10^6 bytes per second); a stream's figure is set beside the latter, the
 * most this tool measures at that size.
 */
public final class FiPingpong {

    /** The provider, as {@code fi_info} names the UDP provider layered under {@code ofi_rxd}. */
    public static final String PROVIDER = "udp;ofi_rxd";

    private final Path executable;

    /**
     * What one run reported.
     *
     * @param oneWayUs  {@code usec/xfer}: microseconds per message, one way
     * @param mbPerSec  {@code MB/sec}: 10^6 bytes per second, both directions together
     */
    public record Figures(double oneWayUs, double mbPerSec) {
    }

    private FiPingpong(Path executable) {
        this.executable = executable;
    }

    /**
     * @param command a path, or a name looked up on {@code PATH}
     * @return the tool, if it is there and executable
     */
    public static Optional<FiPingpong> find(String command) {
        return Executables.find(command).map(FiPingpong::new);
    }

    /** @return the executable run */
    public Path executable() {
        return executable;
    }

    /**
     * Runs a server and a client on loopback, {@code iterations} round trips of {@code size}-byte messages on an
     * RDM endpoint, and parses the client's report. Both processes are killed if they outlast {@code limit}, fail,
     * or this JVM exits first.
     *
     * @param size       bytes per message
     * @param iterations round trips
     * @param limit      how long the pair may take
     * @return the client's figures
     * @throws IOException if either exits with an error, outlasts the limit, or the report cannot be read; the
     *                     message carries the tool's last words
     */
    public Figures run(int size, int iterations, Duration limit) throws IOException, InterruptedException {
        // fi_pingpong's server takes its control port on INADDR_ANY: a free one, found the way a server would.
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        List<String> common = List.of(executable.toString(), "-p", PROVIDER, "-e", "rdm", "-S",
                Integer.toString(size), "-I", Integer.toString(iterations));
        List<String> server = new ArrayList<>(common);
        server.addAll(List.of("-B", Integer.toString(port)));
        List<String> client = new ArrayList<>(common);
        client.addAll(List.of("-P", Integer.toString(port), InetAddress.getLoopbackAddress().getHostAddress()));
        try (ToolRun run = new ToolRun(limit)) {
            ToolRun.Started serving = run.start(server);
            String report = run.runClient(client, "fi_pingpong's client", "Connection refused",
                    serving.process()::isAlive);
            run.await(serving, "fi_pingpong's server");
            return parse(report);
        } catch (TimeoutException e) {
            throw new IOException("fi_pingpong took longer than " + limit.toSeconds() + " s at " + size + " bytes");
        }
    }

    /**
     * Reads the report {@code fi_pingpong} prints for one size: a header line naming the columns
     * ({@code bytes #sent #ack total time MB/sec usec/xfer Mxfers/sec}) and one line of figures under it.
     *
     * @param report what the client printed
     * @return its figures
     * @throws IOException if there is no such report in it
     */
    public static Figures parse(String report) throws IOException {
        List<String> lines = report.lines().map(String::strip).toList();
        for (int i = 0; i + 1 < lines.size(); i++) {
            List<String> header = List.of(lines.get(i).split("\\s+"));
            int mbPerSec = header.indexOf("MB/sec");
            int oneWay = header.indexOf("usec/xfer");
            if (header.get(0).equals("bytes") && mbPerSec > 0 && oneWay > 0) {
                String[] figures = lines.get(i + 1).split("\\s+");
                if (figures.length != header.size()) {
                    break;
                }
                try {
                    return new Figures(Double.parseDouble(figures[oneWay]), Double.parseDouble(figures[mbPerSec]));
                } catch (NumberFormatException e) {
                    break;
                }
            }
        }
        throw new IOException("no fi_pingpong report in: " + report.strip());
    }
}
