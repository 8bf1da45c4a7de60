package org.rpcrdma4j.testbed.bench;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.rpcrdma4j.efa.CompletionEntry;
import org.rpcrdma4j.efa.EfaEndpoint;
import org.rpcrdma4j.efa.EndpointConfig;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.EndpointStatistics;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.sim.SimFabric;

/**
 * Ping-pong latency and streaming bandwidth between two EFA endpoints on the simulated fabric, each
 * beside a single-thread memcpy of the same size measured in the same run.
 *
 * <p>The fabric adds no delay, so what is measured is the software: packet building and parsing,
 * protocol state, copies and the simulated device's bookkeeping. One thread drives both endpoints and
 * the fabric on a virtual clock that advances {@link #STEP_NS} per step; wall-clock time is measured
 * around whole runs. Latency is half a round trip, the median of {@link #LATENCY_BATCHES} timed batches.
 * Every run checks the data of its last message.
 */
public final class EfaBench {

    /** Virtual time per step of the driver loop. */
    static final long STEP_NS = 1_000;
    /** Most messages in flight when streaming: within the default TX and RX entry tables. */
    static final int STREAM_WINDOW = 64;
    private static final long STEP_LIMIT = 100_000_000L;
    private static final int[] PING_PONG_SIZES = {8, 4096, 65536};
    /** Ping-pong latency is the median of this many timed batches. */
    private static final int LATENCY_BATCHES = 5;
    private static final int[] STREAM_SIZES = {65536, 1 << 20, 16 << 20};
    /** Runs in the warm-up set and the measured set together. */
    public static final int RUNS = 2 * (PING_PONG_SIZES.length + STREAM_SIZES.length);

    /**
     * One measurement.
     *
     * @param test            "pingpong" (value in µs, one way) or "stream" (value in MB/s)
     * @param size            message size in bytes
     * @param efa             the endpoints' figure
     * @param memcpy          the peer: µs per copy of {@code size} bytes; for a stream, MB/s of copies
     *                        into the same rotation of buffers the receiver fills, so that both touch
     *                        as much memory
     * @param memcpyOneBuffer for a stream, MB/s of copies into one buffer (cache-hot when it fits); for
     *                        a ping-pong, equal to {@code memcpy}
     * @param verified        whether the last message arrived intact
     */
    public record Result(String test, int size, double efa, double memcpy, double memcpyOneBuffer, boolean verified) {

        /** @return efa / memcpy for bandwidth (higher is better), memcpy / efa for latency */
        public double ratio() {
            return test.equals("stream") ? efa / memcpy : memcpy / efa;
        }
    }

    private final SimFabric fabric;
    private final EfaEndpoint a;
    private final EfaEndpoint b;
    private final long aToB;
    private long bToA;
    private long now;
    private int aSends;
    private int aRecvs;
    private int bSends;
    private int bRecvs;
    private long bLastRecvContext;
    /** Receive buffers of the stream that B has filled and not yet reposted, by slot. */
    private int[] filled;
    private int filledCount;
    private boolean failed;
    /** Keeps the memcpy loops' results live. */
    private static volatile int sink;

    /**
     * Creates two endpoints on a fresh fabric and lets them exchange handshakes.
     *
     * @param seed the fabric's and endpoints' seed
     */
    public EfaBench(long seed) {
        fabric = new SimFabric(seed);
        a = new EfaEndpoint(fabric.createDevice(new Gid(0xfe80_0000_0000_0000L, 1), 1),
                EndpointConfig.DEFAULT.withRandomSeed(seed));
        b = new EfaEndpoint(fabric.createDevice(new Gid(0xfe80_0000_0000_0000L, 2), 2),
                EndpointConfig.DEFAULT.withRandomSeed(~seed));
        aToB = a.insert(b.address());
        ByteBuffer one = ByteBuffer.allocate(1);
        b.recv(EfaEndpoint.ADDR_UNSPEC, one, 0);
        a.send(aToB, ByteBuffer.allocate(1), 0);
        runUntil(() -> bRecvs == 1 && aSends == 1);
        a.recv(aToB, ByteBuffer.allocate(1), 0);
        b.send(bToA, ByteBuffer.allocate(1), 0);
        runUntil(() -> aRecvs == 1 && bSends == 1);
    }

    /**
     * Runs the set: ping-pong of 8 B, 4 KiB and 64 KiB, streaming of 64 KiB, 1 MiB and 16 MiB.
     * The whole set runs once unmeasured first, so that every path is compiled before any is timed.
     *
     * @param seed        the seed
     * @param iterations  round trips per ping-pong size
     * @param streamBytes bytes streamed per size; at least one message each
     * @return the results in that order
     */
    public static List<Result> runAll(long seed, int iterations, long streamBytes) {
        return runAll(seed, iterations, streamBytes, new Listener() { });
    }

    /**
     * Runs the set as {@link #runAll(long, int, long)} does, telling {@code listener} as it goes.
     *
     * @param seed        the seed
     * @param iterations  round trips per ping-pong size
     * @param streamBytes bytes streamed per size; at least one message each
     * @param listener    told when each run starts and each measured run ends
     * @return the results in that order
     */
    public static List<Result> runAll(long seed, int iterations, long streamBytes, Listener listener) {
        EfaBench bench = new EfaBench(seed);
        bench.runSet(iterations, streamBytes, true, listener);
        return bench.runSet(iterations, streamBytes, false, listener);
    }

    /** What a caller hears of a run of the set, for progress and for rows printed as they finish. */
    public interface Listener {

        /**
         * A run starts.
         *
         * @param index  the run's place in both sets together, from 0 ({@link EfaBench#RUNS} in all)
         * @param warmUp whether it belongs to the unmeasured set
         * @param test   "pingpong" or "stream"
         * @param size   message size in bytes
         */
        default void starting(int index, boolean warmUp, String test, int size) {
        }

        /**
         * A measured run ended.
         *
         * @param result its result
         */
        default void finished(Result result) {
        }
    }

    private List<Result> runSet(int iterations, long streamBytes, boolean warmUp, Listener listener) {
        List<Result> results = new ArrayList<>();
        int index = warmUp ? 0 : RUNS / 2;
        for (int size : PING_PONG_SIZES) {
            listener.starting(index++, warmUp, "pingpong", size);
            results.add(pingPong(size, iterations));
            if (!warmUp) {
                listener.finished(results.get(results.size() - 1));
            }
        }
        for (int size : STREAM_SIZES) {
            listener.starting(index++, warmUp, "stream", size);
            results.add(stream(size, (int) Math.max(1, streamBytes / size)));
            if (!warmUp) {
                listener.finished(results.get(results.size() - 1));
            }
        }
        return results;
    }

    /**
     * Measures the one-way latency of {@code size}-byte messages sent back and forth.
     *
     * @param size       bytes per message
     * @param iterations round trips measured, in {@link #LATENCY_BATCHES} batches, after as many untimed
     * @return the result
     */
    public Result pingPong(int size, int iterations) {
        ByteBuffer ping = pattern(size, 1);
        ByteBuffer pong = pattern(size, 2);
        ByteBuffer atB = ByteBuffer.allocate(size);
        ByteBuffer atA = ByteBuffer.allocate(size);
        // Untimed first: what the streams compiled in the warm-up set may have displaced this path.
        roundTrips(ping, pong, atA, atB, iterations);
        // The median of a few timed batches: on a small machine one batch may share its time slice.
        int perBatch = Math.max(1, iterations / LATENCY_BATCHES);
        double[] oneWay = new double[LATENCY_BATCHES];
        for (int batch = 0; batch < LATENCY_BATCHES; batch++) {
            long start = System.nanoTime();
            roundTrips(ping, pong, atA, atB, perBatch);
            oneWay[batch] = (System.nanoTime() - start) / 1e3 / perBatch / 2;
        }
        Arrays.sort(oneWay);
        double oneWayUs = oneWay[LATENCY_BATCHES / 2];
        boolean verified = atB.equals(ping) && atA.equals(pong);
        double memcpy = memcpyMicros(size, iterations);
        return new Result("pingpong", size, oneWayUs, memcpy, memcpy, verified && !failed);
    }

    private void roundTrips(ByteBuffer ping, ByteBuffer pong, ByteBuffer atA, ByteBuffer atB, int iterations) {
        for (int i = 0; i < iterations; i++) {
            int recvsAtB = bRecvs;
            int recvsAtA = aRecvs;
            int sendsAtA = aSends;
            int sendsAtB = bSends;
            b.recv(EfaEndpoint.ADDR_UNSPEC, atB, 0);
            a.recv(aToB, atA, 0);
            a.send(aToB, ping, 0);
            runUntil(() -> bRecvs > recvsAtB);
            b.send(bToA, pong, 0);
            runUntil(() -> aRecvs > recvsAtA && aSends > sendsAtA && bSends > sendsAtB);
        }
    }

    /**
     * Measures streaming bandwidth: A sends {@code count} messages of {@code size} bytes to B with up
     * to {@link #STREAM_WINDOW} in flight; B keeps as many receives posted.
     *
     * @param size  bytes per message
     * @param count messages measured
     * @return the result
     */
    public Result stream(int size, int count) {
        ByteBuffer data = pattern(size, 3);
        int window = Math.min(STREAM_WINDOW, count);
        ByteBuffer[] buffers = new ByteBuffer[window];
        for (int i = 0; i < window; i++) {
            buffers[i] = ByteBuffer.allocate(size);
        }
        long start = System.nanoTime();
        streamMessages(data, buffers, count);
        double seconds = (System.nanoTime() - start) / 1e9;
        double mbps = (double) size * count / seconds / 1e6;
        boolean verified = buffers[(int) bLastRecvContext].equals(data);
        return new Result("stream", size, mbps, memcpyMegabytesPerSecond(data.array(), buffers, count),
                memcpyMegabytesPerSecond(data.array(), new ByteBuffer[] {ByteBuffer.allocate(size)}, count),
                verified && !failed);
    }

    private void streamMessages(ByteBuffer data, ByteBuffer[] buffers, int count) {
        int firstRecv = bRecvs;
        int firstSend = aSends;
        filled = new int[buffers.length];
        filledCount = 0;
        for (int i = 0; i < buffers.length; i++) {
            b.recv(EfaEndpoint.ADDR_UNSPEC, buffers[i], i);
        }
        int sent = 0;
        int posted = buffers.length;
        for (long steps = 0; bRecvs - firstRecv < count; steps++) {
            if (steps > STEP_LIMIT) {
                throw new IllegalStateException("streaming made no progress: " + state());
            }
            while (sent < count && sent - (aSends - firstSend) < buffers.length && a.send(aToB, data, 0)) {
                sent++;
            }
            step();
            // Give each filled buffer back while more messages are to come.
            while (filledCount > 0 && posted < count) {
                int slot = filled[--filledCount];
                b.recv(EfaEndpoint.ADDR_UNSPEC, buffers[slot], slot);
                posted++;
            }
        }
        runUntil(() -> aSends - firstSend == count);
    }

    /** One step: advance the virtual clock, run due wire work, progress both endpoints, take completions. */
    private void step() {
        now += STEP_NS;
        fabric.progress(now);
        a.progress(now);
        b.progress(now);
        a.poll(this::onA, Integer.MAX_VALUE);
        b.poll(this::onB, Integer.MAX_VALUE);
    }

    private void runUntil(BooleanSupplier done) {
        for (long i = 0; !done.getAsBoolean(); i++) {
            if (i > STEP_LIMIT) {
                throw new IllegalStateException("no progress: " + state());
            }
            step();
        }
    }

    /** @return the driver's counts and both endpoints' counters, for a run that stopped moving */
    private String state() {
        StringBuilder text = new StringBuilder("A sent " + aSends + " received " + aRecvs + ", B sent " + bSends
                + " received " + bRecvs + "; counters A/B:");
        EndpointStatistics atEndpointA = a.statistics();
        EndpointStatistics atEndpointB = b.statistics();
        for (EndpointCounter counter : EndpointCounter.values()) {
            long atA = atEndpointA.counter(counter);
            long atB = atEndpointB.counter(counter);
            if (atA != 0 || atB != 0) {
                text.append(' ').append(counter).append('=').append(atA).append('/').append(atB);
            }
        }
        return text.toString();
    }

    private void onA(CompletionEntry entry) {
        failed |= !entry.ok();
        switch (entry.kind()) {
            case SEND -> aSends++;
            case RECV -> aRecvs++;
            default -> failed = true;
        }
    }

    private void onB(CompletionEntry entry) {
        failed |= !entry.ok();
        switch (entry.kind()) {
            case SEND -> bSends++;
            case RECV -> {
                bRecvs++;
                bToA = entry.source();
                bLastRecvContext = entry.context();
                if (filled != null && filledCount < filled.length) {
                    filled[filledCount++] = (int) entry.context();
                }
            }
            default -> failed = true;
        }
    }

    /** @return {@code size} bytes of a pattern that differs by {@code seed}, to check what arrived */
    static ByteBuffer pattern(int size, int seed) {
        byte[] bytes = new byte[size];
        for (int i = 0; i < size; i++) {
            bytes[i] = (byte) (i * 31 + seed);
        }
        return ByteBuffer.wrap(bytes);
    }

    /** The peer of a ping: µs for one single-thread copy of {@code size} bytes, over as many copies. */
    private static double memcpyMicros(int size, int copies) {
        byte[] src = pattern(size, 4).array();
        byte[] dst = new byte[size];
        sink = copy(src, dst, copies);
        long start = System.nanoTime();
        sink = copy(src, dst, copies);
        return (System.nanoTime() - start) / 1e3 / copies;
    }

    /** The peer of a stream: MB/s of single-thread copies of {@code src} into {@code targets} in turn. */
    private static double memcpyMegabytesPerSecond(byte[] src, ByteBuffer[] targets, int copies) {
        sink = copyInTurn(src, targets, copies);
        long start = System.nanoTime();
        sink = copyInTurn(src, targets, copies);
        double seconds = (System.nanoTime() - start) / 1e9;
        return (double) src.length * copies / seconds / 1e6;
    }

    private static int copyInTurn(byte[] src, ByteBuffer[] targets, int copies) {
        int sum = 0;
        for (int i = 0; i < copies; i++) {
            byte[] dst = targets[i % targets.length].array();
            System.arraycopy(src, 0, dst, 0, src.length);
            sum += dst[i % dst.length];
        }
        return sum;
    }

    /** Copies and reads one byte of each copy, so the copies cannot be elided. */
    private static int copy(byte[] src, byte[] dst, int copies) {
        int sum = 0;
        for (int i = 0; i < copies; i++) {
            System.arraycopy(src, 0, dst, 0, src.length);
            sum += dst[i % dst.length];
        }
        return sum;
    }
}
