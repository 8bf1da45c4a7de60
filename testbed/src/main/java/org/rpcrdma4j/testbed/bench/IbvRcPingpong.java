package org.rpcrdma4j.testbed.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * rdma-core's {@code ibv_rc_pingpong} (Debian's {@code ibverbs-utils}): raw verbs on an RC queue pair, the peer
 * {@code bench efa --device verbs} measures its endpoints beside. Its server half runs where the bench's peer runs
 * ({@link #serve}), its client half here ({@link #run}); they meet over TCP (port {@value #PORT}), then ping-pong
 * Sends of the size, busy-polling their completion queues.
 *
 * <p>It reports {@code usec/iter}, the time of a round trip (one message each way), and {@code Mbit/sec}, the bytes
 * of both directions over the run's time; the one-way time is half the first, and the MB/s (10^6 bytes a second) an
 * eighth of the second, as {@link FiPingpong.Figures} gives them.
 */
public final class IbvRcPingpong {

    /** Where its server half waits for the client's TCP connection: the tool's default. */
    static final int PORT = 18515;
    private static final Pattern ITERS = Pattern.compile("(\\d+) iters in [0-9.]+ seconds = ([0-9.]+) usec/iter");
    private static final Pattern RATE = Pattern.compile("(\\d+) bytes in [0-9.]+ seconds = ([0-9.]+) Mbit/sec");

    private final Path executable;

    private IbvRcPingpong(Path executable) {
        this.executable = executable;
    }

    /**
     * @param command a path, or a name looked up on {@code PATH}
     * @return the tool, if it is there and executable
     */
    public static Optional<IbvRcPingpong> find(String command) {
        return Executables.find(command).map(IbvRcPingpong::new);
    }

    /** @return the executable run */
    public Path executable() {
        return executable;
    }

    /**
     * Starts the server half, which serves one client and exits.
     *
     * @param gid        the local GID the queue pair uses
     * @param size       bytes per message
     * @param iterations round trips
     * @param run        the run it belongs to, which kills it when closed
     * @return the process
     */
    ToolRun.Started serve(RdmaGid gid, int size, int iterations, ToolRun run) throws IOException {
        return run.start(command(gid, size, iterations));
    }

    /**
     * Runs the client half against a server half started with the same size and iterations, once that listens: a
     * client that comes first cannot connect, so it is run again until the deadline.
     *
     * @param server     the server's host
     * @param gid        the local GID the queue pair uses
     * @param size       bytes per message
     * @param iterations round trips
     * @param limit      how long it may take
     * @return the client's figures
     * @throws IOException if it fails, outlasts the limit, or its report cannot be read
     */
    FiPingpong.Figures run(InetAddress server, RdmaGid gid, int size, int iterations, Duration limit)
            throws IOException, InterruptedException {
        List<String> client = command(gid, size, iterations);
        client.add(server.getHostAddress());
        try (ToolRun run = new ToolRun(limit)) {
            // The server half runs on the peer's host: whether it is still there only its deadline tells.
            return parse(run.runClient(client, "ibv_rc_pingpong's client", "Couldn't connect", () -> true));
        } catch (TimeoutException e) {
            throw new IOException("ibv_rc_pingpong took longer than " + limit.toSeconds() + " s at " + size
                    + " bytes");
        }
    }

    private List<String> command(RdmaGid gid, int size, int iterations) {
        return new ArrayList<>(List.of(executable.toString(), "-d", gid.device(), "-i", Integer.toString(gid.port()),
                "-g", Integer.toString(gid.index()), "-p", Integer.toString(PORT), "-s", Integer.toString(size),
                "-n", Integer.toString(iterations)));
    }

    /**
     * Reads its report: {@code B bytes in S seconds = M Mbit/sec} and {@code N iters in S seconds = U usec/iter}.
     *
     * @param report what the client printed
     * @return its figures: one way, half a round trip; MB/s of both directions
     * @throws IOException if there is no such report in it
     */
    static FiPingpong.Figures parse(String report) throws IOException {
        Matcher iters = ITERS.matcher(report);
        Matcher rate = RATE.matcher(report);
        if (!iters.find() || !rate.find()) {
            throw new IOException("no ibv_rc_pingpong report in: " + report.strip());
        }
        return new FiPingpong.Figures(Double.parseDouble(iters.group(2)) / 2, Double.parseDouble(rate.group(2)) / 8);
    }
}
