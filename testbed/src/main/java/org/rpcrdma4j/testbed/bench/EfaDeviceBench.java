package org.rpcrdma4j.testbed.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.rpcrdma4j.efa.CompletionEntry;
import org.rpcrdma4j.efa.EfaEndpoint;
import org.rpcrdma4j.efa.device.DeviceProvider;
import org.rpcrdma4j.fabric.SocketAddressText;

/**
 * Ping-pong latency and streaming bandwidth between two EFA endpoints on devices that open on an address
 * ({@link DeviceProvider}: UDP, verbs), this one and an {@link EfaEchoPeer}: in a second process this bench starts
 * ({@link PeerProcess}), or on another host, reached over TCP ({@link PeerConnection}). Beside each size, in the
 * same run, a peer tool of the device's kind when it is installed: libfabric's {@code fi_pingpong} on its UDP
 * provider ({@link FiPingpong}) between two processes of its own on this host, or rdma-core's
 * {@code ibv_rc_pingpong} ({@link IbvRcPingpong}) between this host and the peer's, raw verbs on the same RDMA
 * devices.
 *
 * <p>The sizes are {@link EfaBench}'s. Ping-pong: this side sends, the peer sends the message back; latency is
 * half a round trip, the median of {@value #LATENCY_BATCHES} timed batches after as many round trips untimed.
 * Stream: this side sends the messages with up to {@value #STREAM_WINDOW} in flight, the peer keeps as many
 * receives posted and sends one byte back after the last; the time runs from the first send to that byte. The
 * whole set runs once unmeasured first, in both processes; every ping-pong checks its last echo and every
 * stream its last message. Each endpoint is driven by one thread that polls and, when nothing moves for a
 * while, sleeps until its device wakes it ({@link EndpointDriver}).
 */
public final class EfaDeviceBench implements AutoCloseable {

    /** Most messages in flight when streaming, as on the simulated device. */
    static final int STREAM_WINDOW = EfaBench.STREAM_WINDOW;
    private static final int[] PING_PONG_SIZES = {8, 4096, 65536};
    private static final int[] STREAM_SIZES = {65536, 1 << 20, 16 << 20};
    private static final int LATENCY_BATCHES = 5;
    /** Runs in the warm-up set and the measured set together. */
    public static final int RUNS = 2 * (PING_PONG_SIZES.length + STREAM_SIZES.length);
    private static final Duration ANSWER_LIMIT = Duration.ofSeconds(60);
    private static final Duration RUN_LIMIT = Duration.ofMinutes(5);
    /** How long one run of a peer tool may take before it is killed and its figure left out. */
    private static final Duration TOOL_LIMIT = Duration.ofMinutes(1);
    private static final long DONE = -2;

    /**
     * One measurement.
     *
     * @param test     "pingpong" (values in µs, one way) or "stream" (values in MB/s)
     * @param size     message size in bytes
     * @param efa      the endpoints' figure
     * @param beside   the peer tool's at the same size: its one-way time for a ping-pong, its MB/s (both
     *                 directions of its ping-pong) for a stream; NaN when it did not run
     * @param verified whether the last message arrived intact
     */
    public record Result(String test, int size, double efa, double beside, boolean verified) {

        /** @return efa / the tool's: below 1 is better for a ping-pong, above 1 for a stream; NaN without it */
        public double ratio() {
            return efa / beside;
        }

        Result beside(double theirs) {
            return new Result(test, size, efa, theirs, verified);
        }
    }

    /** What a caller hears of the run, for progress, rows printed as they finish, and notes. */
    public interface Listener {

        /**
         * A run starts.
         *
         * @param index  the run's place in both sets together, from 0 ({@link #RUNS} in all)
         * @param warmUp whether it belongs to the unmeasured set
         * @param test   "pingpong" or "stream"
         * @param size   message size in bytes
         */
        default void starting(int index, boolean warmUp, String test, int size) {
        }

        /**
         * A measured run ended, the peer tool's beside it.
         *
         * @param result its result
         */
        default void finished(Result result) {
        }

        /**
         * Something the reader should know: whether the peer tool runs, why a run of it failed.
         *
         * @param note one line
         */
        default void note(String note) {
        }
    }

    /**
     * The peer tool measured beside: {@code fi_pingpong} on this host, or {@code ibv_rc_pingpong} between this host
     * and the peer's, its server half run by the peer; one of the two is set.
     */
    public record Beside(FiPingpong fi, IbvRcPingpong ibv) {

        /** @return the tool's name */
        public String name() {
            return fi != null ? "fi_pingpong" : "ibv_rc_pingpong";
        }
    }

    private final PeerLink peer;
    private final EndpointDriver driver;
    private final long peerHandle;
    private final InetAddress local;
    private final InetAddress remote;
    private final ByteBuffer doneByte = ByteBuffer.allocate(1);
    private int sends;
    private int recvs;
    private boolean done;
    private String failure;

    private EfaDeviceBench(PeerLink peer, EndpointDriver driver, String peerAddress, String listen) {
        this.peer = peer;
        this.driver = driver;
        this.peerHandle = driver.endpoint().insert(EndpointDriver.parse(peerAddress));
        this.local = SocketAddressText.parse(listen, 0).getAddress();
        this.remote = SocketAddressText.parse(peerAddress.substring(0, peerAddress.indexOf('/')), 0).getAddress();
    }

    /**
     * Starts the peer process and this side's endpoint, both on {@code listen}'s address.
     *
     * @param provider the kind of device, in both processes
     * @param listen   {@code ADDRESS[:PORT]}: where both devices open, port 0 for any (each takes its own)
     * @return the bench, its peer running
     * @throws IOException if the peer cannot start or a device cannot open
     */
    public static EfaDeviceBench start(DeviceProvider provider, String listen)
            throws IOException, InterruptedException {
        return with(PeerProcess.start(List.of("bench", "efa-peer", "--device", provider.name(), "--listen", listen)),
                provider, listen);
    }

    /**
     * Reaches a peer on another host, started there with {@code testbed bench efa-peer --control PORT}, and opens
     * this side's endpoint.
     *
     * @param provider the kind of device, as the peer's
     * @param listen   {@code ADDRESS[:PORT]}: where this side's device opens
     * @param control  the peer's control address
     * @return the bench, its peer reached
     * @throws IOException if the peer does not answer or the device cannot open
     */
    public static EfaDeviceBench connect(DeviceProvider provider, String listen, InetSocketAddress control)
            throws IOException, InterruptedException {
        return with(PeerConnection.connect(control, ANSWER_LIMIT), provider, listen);
    }

    private static EfaDeviceBench with(PeerLink peer, DeviceProvider provider, String listen)
            throws IOException, InterruptedException {
        try {
            String address = peer.expect("efa", ANSWER_LIMIT);
            EndpointDriver driver = EndpointDriver.open(provider, listen);
            try {
                return new EfaDeviceBench(peer, driver, address, listen);
            } catch (RuntimeException e) {
                driver.close();
                throw e;
            }
        } catch (IOException | InterruptedException | RuntimeException e) {
            peer.close();
            throw e;
        }
    }

    /**
     * Runs the set once unmeasured, then measured, each measured run followed by the peer tool at its size.
     *
     * @param iterations  round trips per ping-pong size, untimed and again timed
     * @param streamBytes bytes streamed per size; at least one message each
     * @param beside      the tool, or none
     * @param listener    told as the runs go
     * @return the measured results, ping-pongs then streams
     * @throws IOException if the peer fails or stops answering
     */
    public List<Result> runAll(int iterations, long streamBytes, Optional<Beside> beside, Listener listener)
            throws IOException, InterruptedException {
        runSet(iterations, streamBytes, Optional.empty(), true, listener);
        return runSet(iterations, streamBytes, beside, false, listener);
    }

    private List<Result> runSet(int iterations, long streamBytes, Optional<Beside> beside, boolean warmUp,
                                Listener listener) throws IOException, InterruptedException {
        List<Result> results = new ArrayList<>();
        int index = warmUp ? 0 : RUNS / 2;
        for (int size : PING_PONG_SIZES) {
            listener.starting(index++, warmUp, "pingpong", size);
            Result ours = pingPong(size, iterations);
            finished(results, ours.beside(tool(beside, size, Math.min(iterations, defaultIterations(size)),
                    listener).map(FiPingpong.Figures::oneWayUs).orElse(Double.NaN)), warmUp, listener);
        }
        for (int size : STREAM_SIZES) {
            listener.starting(index++, warmUp, "stream", size);
            int count = (int) Math.max(1, streamBytes / size);
            Result ours = stream(size, count);
            finished(results, ours.beside(tool(beside, size, Math.min(count, defaultIterations(size)),
                    listener).map(FiPingpong.Figures::mbPerSec).orElse(Double.NaN)), warmUp, listener);
        }
        return results;
    }

    private static void finished(List<Result> results, Result result, boolean warmUp, Listener listener) {
        results.add(result);
        if (!warmUp) {
            listener.finished(result);
        }
    }

    /** fabtests' own iteration counts by size ({@code size_to_count}): its large messages are slow over UDP. */
    private static int defaultIterations(int size) {
        return size >= 1 << 20 ? 100 : size >= 1 << 16 ? 1000 : 10_000;
    }

    private Optional<FiPingpong.Figures> tool(Optional<Beside> beside, int size, int iterations, Listener listener)
            throws InterruptedException {
        if (beside.isEmpty()) {
            return Optional.empty();
        }
        try {
            Beside tool = beside.get();
            return Optional.of(tool.fi() != null ? tool.fi().run(size, iterations, TOOL_LIMIT)
                    : ibvRcPingpong(tool.ibv(), size, iterations));
        } catch (IOException e) {
            listener.note(beside.get().name() + " at " + size + " bytes: " + e.getMessage());
            return Optional.empty();
        }
    }

    /** Has the peer start the server half, then runs the client half against it. */
    private FiPingpong.Figures ibvRcPingpong(IbvRcPingpong tool, int size, int iterations)
            throws IOException, InterruptedException {
        RdmaGid gid = RdmaGid.of(local).orElseThrow(() -> new IOException("no RDMA device of this host has "
                + local.getHostAddress()));
        command("ibv " + size + " " + iterations);
        return tool.run(remote, gid, size, iterations, TOOL_LIMIT);
    }

    /**
     * Measures the one-way latency of {@code size}-byte messages sent to the peer and back.
     *
     * @param size       bytes per message
     * @param iterations round trips untimed, then as many timed in {@value #LATENCY_BATCHES} batches
     * @return the result, without the peer tool's figure
     */
    private Result pingPong(int size, int iterations) throws IOException, InterruptedException {
        command("pingpong " + size);
        ByteBuffer ping = EfaBench.pattern(size, 1);
        ByteBuffer atA = ByteBuffer.allocate(size);
        roundTrips(ping, atA, iterations);
        int perBatch = Math.max(1, iterations / LATENCY_BATCHES);
        double[] oneWay = new double[LATENCY_BATCHES];
        for (int batch = 0; batch < LATENCY_BATCHES; batch++) {
            long start = System.nanoTime();
            roundTrips(ping, atA, perBatch);
            oneWay[batch] = (System.nanoTime() - start) / 1e3 / perBatch / 2;
        }
        Arrays.sort(oneWay);
        return new Result("pingpong", size, oneWay[LATENCY_BATCHES / 2], Double.NaN, atA.equals(ping) && ok());
    }

    private void roundTrips(ByteBuffer ping, ByteBuffer atA, int iterations) {
        EfaEndpoint endpoint = driver.endpoint();
        for (int i = 0; i < iterations; i++) {
            int recvsBefore = recvs;
            int sendsBefore = sends;
            post(endpoint.recv(peerHandle, atA, 0), "receive");
            post(endpoint.send(peerHandle, ping, 0), "send");
            driver.turnUntil(() -> recvs > recvsBefore && sends > sendsBefore || failure != null, this::onCompletion,
                    RUN_LIMIT, "echo");
        }
    }

    /**
     * Measures streaming bandwidth: {@code count} messages of {@code size} bytes to the peer with up to
     * {@value #STREAM_WINDOW} in flight, until the peer's byte says the last one came.
     *
     * @return the result, without the peer tool's figure
     */
    private Result stream(int size, int count) throws IOException, InterruptedException {
        command("stream " + size + " " + STREAM_WINDOW + " " + count);
        ByteBuffer data = streamData(size);
        EfaEndpoint endpoint = driver.endpoint();
        done = false;
        post(endpoint.recv(peerHandle, doneByte.clear(), DONE), "receive");
        int firstSend = sends;
        int sent = 0;
        long start = System.nanoTime();
        long deadline = start + RUN_LIMIT.toNanos();
        while (!done && failure == null) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("a stream of " + count + " messages of " + size
                        + " bytes did not end within " + RUN_LIMIT.toMinutes() + " minutes");
            }
            while (sent < count && sent - (sends - firstSend) < STREAM_WINDOW && endpoint.send(peerHandle, data, 0)) {
                sent++;
            }
            driver.turn(this::onCompletion);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        driver.turnUntil(() -> sends - firstSend == count || failure != null, this::onCompletion, RUN_LIMIT,
                "send completions");
        return new Result("stream", size, (double) size * count / seconds / 1e6, Double.NaN,
                doneByte.get(0) == 1 && ok());
    }

    /** @return the message every stream sends, which the peer checks the last one against */
    static ByteBuffer streamData(int size) {
        return EfaBench.pattern(size, 3);
    }

    /**
     * Sets the peer up and waits for its {@code ready}, driving this side's endpoint meanwhile: the peer's last
     * sends complete only once this side's device and endpoint have taken them.
     */
    private void command(String line) throws IOException {
        peer.send(line);
        long deadline = System.nanoTime() + ANSWER_LIMIT.toNanos();
        String answer;
        while ((answer = peer.poll()) == null) {
            if (System.nanoTime() - deadline > 0) {
                throw new IOException("the peer did not answer '" + line + "' within "
                        + ANSWER_LIMIT.toSeconds() + " s");
            }
            driver.turn(this::onCompletion);
        }
        if (answer.startsWith("unavailable ")) {
            throw new IOException(answer.substring("unavailable ".length()));
        }
        if (!answer.equals("ready")) {
            throw new IOException("the peer answered '" + answer + "' to '" + line + "'");
        }
    }

    private static void post(boolean taken, String what) {
        if (!taken) {
            throw new IllegalStateException("the endpoint's table is full: the " + what + " was not taken");
        }
    }

    private boolean ok() {
        return failure == null;
    }

    private void onCompletion(CompletionEntry entry) {
        if (!entry.ok()) {
            failure = entry.kind() + " failed: " + entry.error();
            return;
        }
        switch (entry.kind()) {
            case SEND -> sends++;
            case RECV -> {
                if (entry.context() == DONE) {
                    done = true;
                } else {
                    recvs++;
                }
            }
            default -> failure = "unexpected completion " + entry;
        }
    }

    /** Ends the peer (its input ends, it closes its endpoint and exits) and closes this side's endpoint. */
    @Override
    public void close() {
        try {
            peer.close();
        } finally {
            driver.close();
        }
    }
}
