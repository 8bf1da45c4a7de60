package org.rpcrdma4j.testbed.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.rpcrdma4j.efa.CompletionEntry;
import org.rpcrdma4j.efa.EfaEndpoint;

/**
 * Ping-pong latency and streaming bandwidth between two EFA endpoints on {@code UdpDevice}s in two processes,
 * this one and a {@link PeerProcess} running {@link EfaEchoPeer}, beside libfabric's {@code fi_pingpong} on its
 * UDP provider ({@link FiPingpong}) measured between two processes of its own on the same host, in the same
 * run, when it is installed.
 *
 * <p>The sizes are {@link EfaBench}'s. Ping-pong: this side sends, the peer sends the message back; latency is
 * half a round trip, the median of {@value #LATENCY_BATCHES} timed batches after as many round trips untimed.
 * Stream: this side sends the messages with up to {@value #STREAM_WINDOW} in flight, the peer keeps as many
 * receives posted and sends one byte back after the last; the time runs from the first send to that byte. The
 * whole set runs once unmeasured first, in both processes; every ping-pong checks its last echo and every
 * stream its last message. Each endpoint is driven by one thread that polls and, when nothing moves for a
 * while, sleeps until its device wakes it ({@link UdpEndpointDriver}).
 */
public final class EfaUdpBench implements AutoCloseable {

    /** Most messages in flight when streaming, as on the simulated device. */
    static final int STREAM_WINDOW = EfaBench.STREAM_WINDOW;
    private static final int[] PING_PONG_SIZES = {8, 4096, 65536};
    private static final int[] STREAM_SIZES = {65536, 1 << 20, 16 << 20};
    private static final int LATENCY_BATCHES = 5;
    /** Runs in the warm-up set and the measured set together. */
    public static final int RUNS = 2 * (PING_PONG_SIZES.length + STREAM_SIZES.length);
    private static final Duration ANSWER_LIMIT = Duration.ofSeconds(60);
    private static final Duration RUN_LIMIT = Duration.ofMinutes(5);
    /** How long one {@code fi_pingpong} pair may take before it is killed and its figure left out. */
    private static final Duration FI_PINGPONG_LIMIT = Duration.ofMinutes(2);
    private static final long DONE = -2;

    /**
     * One measurement.
     *
     * @param test       "pingpong" (values in µs, one way) or "stream" (values in MB/s)
     * @param size       message size in bytes
     * @param efa        the endpoints' figure
     * @param fiPingpong {@code fi_pingpong}'s at the same size: its one-way time for a ping-pong, its MB/s (both
     *                   directions of its ping-pong) for a stream; NaN when it did not run
     * @param verified   whether the last message arrived intact
     */
    public record Result(String test, int size, double efa, double fiPingpong, boolean verified) {

        /** @return efa / fi_pingpong: below 1 is better for a ping-pong, above 1 for a stream; NaN without it */
        public double ratio() {
            return efa / fiPingpong;
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
         * A measured run ended, {@code fi_pingpong}'s beside it.
         *
         * @param result its result
         */
        default void finished(Result result) {
        }

        /**
         * Something the reader should know: whether {@code fi_pingpong} runs, why a run of it failed.
         *
         * @param note one line
         */
        default void note(String note) {
        }
    }

    private final PeerProcess peer;
    private final UdpEndpointDriver driver;
    private final long peerHandle;
    private final ByteBuffer doneByte = ByteBuffer.allocate(1);
    private int sends;
    private int recvs;
    private boolean done;
    private String failure;

    private EfaUdpBench(PeerProcess peer, UdpEndpointDriver driver, long peerHandle) {
        this.peer = peer;
        this.driver = driver;
        this.peerHandle = peerHandle;
    }

    /**
     * Starts the peer process and this side's endpoint, both bound to {@code listen}'s address.
     *
     * @param listen {@code ADDRESS[:PORT]}: where both devices bind, port 0 for any (each takes its own)
     * @return the bench, its peer running
     * @throws IOException if the peer cannot start or a device cannot bind
     */
    public static EfaUdpBench start(String listen) throws IOException, InterruptedException {
        PeerProcess peer = PeerProcess.start(List.of("bench", "efa-peer", "--listen", listen));
        try {
            String address = peer.expect("efa", ANSWER_LIMIT);
            UdpEndpointDriver driver = UdpEndpointDriver.open(listen);
            try {
                return new EfaUdpBench(peer, driver, driver.endpoint().insert(UdpEndpointDriver.parse(address)));
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
     * Runs the set once unmeasured, then measured, each measured run followed by {@code fi_pingpong} at its size.
     *
     * @param iterations  round trips per ping-pong size, untimed and again timed
     * @param streamBytes bytes streamed per size; at least one message each
     * @param fiPingpong  the tool, or none
     * @param listener    told as the runs go
     * @return the measured results, ping-pongs then streams
     * @throws IOException if the peer fails or stops answering
     */
    public List<Result> runAll(int iterations, long streamBytes, Optional<FiPingpong> fiPingpong, Listener listener)
            throws IOException, InterruptedException {
        runSet(iterations, streamBytes, Optional.empty(), true, listener);
        return runSet(iterations, streamBytes, fiPingpong, false, listener);
    }

    private List<Result> runSet(int iterations, long streamBytes, Optional<FiPingpong> fiPingpong, boolean warmUp,
                                Listener listener) throws IOException, InterruptedException {
        List<Result> results = new ArrayList<>();
        int index = warmUp ? 0 : RUNS / 2;
        for (int size : PING_PONG_SIZES) {
            listener.starting(index++, warmUp, "pingpong", size);
            Result ours = pingPong(size, iterations);
            finished(results, ours.beside(fiPingpong(fiPingpong, size, Math.min(iterations, defaultIterations(size)),
                    listener).map(FiPingpong.Figures::oneWayUs).orElse(Double.NaN)), warmUp, listener);
        }
        for (int size : STREAM_SIZES) {
            listener.starting(index++, warmUp, "stream", size);
            int count = (int) Math.max(1, streamBytes / size);
            Result ours = stream(size, count);
            finished(results, ours.beside(fiPingpong(fiPingpong, size, Math.min(count, defaultIterations(size)),
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

    private static Optional<FiPingpong.Figures> fiPingpong(Optional<FiPingpong> tool, int size, int iterations,
                                                          Listener listener) throws InterruptedException {
        if (tool.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(tool.get().run(size, iterations, FI_PINGPONG_LIMIT));
        } catch (IOException e) {
            listener.note("fi_pingpong at " + size + " bytes: " + e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * Measures the one-way latency of {@code size}-byte messages sent to the peer and back.
     *
     * @param size       bytes per message
     * @param iterations round trips untimed, then as many timed in {@value #LATENCY_BATCHES} batches
     * @return the result, without {@code fi_pingpong}'s figure
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
     * @return the result, without {@code fi_pingpong}'s figure
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
                throw new IOException("the peer process did not answer '" + line + "' within "
                        + ANSWER_LIMIT.toSeconds() + " s");
            }
            driver.turn(this::onCompletion);
        }
        if (!answer.equals("ready")) {
            throw new IOException("the peer process answered '" + answer + "' to '" + line + "'");
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
