package org.rpcrdma4j.testbed.bench;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.rpcrdma4j.efa.CompletionEntry;
import org.rpcrdma4j.efa.EfaEndpoint;
import org.rpcrdma4j.efa.EndpointConfig;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.Capability;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.RmaIov;
import org.rpcrdma4j.efa.device.sim.SimDeviceConfig;
import org.rpcrdma4j.efa.device.sim.SimFabric;

/**
 * The latency of emulated RMA (EFA RDM protocol v4 §3.3, §4.1) beside direct RDMA, between two EFA endpoints on
 * the simulated device, measured in the same run: each row is one operation of one size on devices without the
 * RDMA it needs (so the endpoint emulates it with the subprotocol the row names) beside the same operation on
 * devices with RDMA read and write (a direct RDMA read or write). The device adds no delay, so the figures are the
 * software's: packets built, parsed and copied against one device operation.
 *
 * <p>Operations run one at a time; a figure is the median of {@link #BATCHES} timed batches, from the post to
 * the initiator's completion. Every row checks the bytes of its last operation and that each operation went by
 * the subprotocol it names (the endpoint's counter of it).
 */
public final class EfaRmaBench {

    private static final int BATCHES = 5;
    private static final long STEP_NS = 1_000;
    private static final long STEP_LIMIT = 100_000_000L;
    private static final int SMALL = 4096;
    private static final int LARGE = 1 << 20;

    /** A device's RDMA: none, read only, read and write. */
    private enum Rdma {
        NONE(EnumSet.noneOf(Capability.class)),
        READ(EnumSet.of(Capability.RDMA_READ)),
        READ_WRITE(EnumSet.allOf(Capability.class));

        private final Set<Capability> capabilities;

        Rdma(Set<Capability> capabilities) {
            this.capabilities = capabilities;
        }
    }

    /** One row: an operation and size, the devices that make the endpoint emulate it, and how. */
    private record Case(boolean read, int size, Rdma devices, String subprotocol, EndpointCounter counter) {
    }

    /** The rows, in the order they run and print. */
    private static final List<Case> CASES = List.of(
            new Case(false, SMALL, Rdma.NONE, "EAGER_RTW", EndpointCounter.EAGER_RTW_WRITES),
            new Case(false, LARGE, Rdma.NONE, "LONGCTS_RTW", EndpointCounter.LONGCTS_RTW_WRITES),
            new Case(false, LARGE, Rdma.READ, "LONGREAD_RTW", EndpointCounter.LONGREAD_RTW_WRITES),
            new Case(true, SMALL, Rdma.NONE, "SHORT_RTR", EndpointCounter.SHORT_RTR_READS),
            new Case(true, LARGE, Rdma.NONE, "LONGCTS_RTR", EndpointCounter.LONGCTS_RTR_READS));

    /** Rows of a whole run. */
    public static final int ROWS = CASES.size();

    /**
     * One row.
     *
     * @param operation   "write" or "read"
     * @param size        bytes per operation
     * @param subprotocol what carried the emulated operation
     * @param emulatedUs  µs per emulated operation
     * @param directUs    µs per direct RDMA operation of the same size, in the same run
     * @param verified    whether the last operation of each kind moved the right bytes, each by the named way
     */
    public record Result(String operation, int size, String subprotocol, double emulatedUs, double directUs,
                         boolean verified) {

        /** @return emulated / direct time: how many times slower the emulation is */
        public double ratio() {
            return emulatedUs / directUs;
        }
    }

    /** What a caller hears of a run, for progress and rows printed as they finish. */
    public interface Listener {

        /**
         * A row starts.
         *
         * @param index its place, from 0 ({@link #ROWS} in all)
         * @param name  what it measures
         */
        default void starting(int index, String name) {
        }

        /**
         * A row ended.
         *
         * @param result its result
         */
        default void finished(Result result) {
        }
    }

    private EfaRmaBench() {
    }

    /**
     * Runs every row.
     *
     * @param seed       the fabrics' and endpoints' seed
     * @param iterations operations per small row's figure; a 1 MiB row makes as many as {@code largeBytes} hold
     * @param largeBytes bytes moved per 1 MiB row's figure, at least one operation
     * @param listener   told as the rows go
     * @return the results in order
     */
    public static List<Result> runAll(long seed, int iterations, long largeBytes, Listener listener) {
        List<Result> results = new ArrayList<>();
        int index = 0;
        for (Case row : CASES) {
            String operation = row.read ? "read" : "write";
            listener.starting(index++, operation + " " + row.size + " " + row.subprotocol);
            int count = row.size == LARGE ? (int) Math.max(1, largeBytes / LARGE) : iterations;
            Timed emulated = new Pair(seed, row.devices).time(row, count);
            Timed direct = new Pair(seed, Rdma.READ_WRITE).time(new Case(row.read, row.size, Rdma.READ_WRITE,
                    "direct", row.read ? EndpointCounter.DIRECT_READS : EndpointCounter.DIRECT_WRITES), count);
            Result result = new Result(operation, row.size, row.subprotocol, emulated.micros, direct.micros,
                    emulated.verified && direct.verified);
            listener.finished(result);
            results.add(result);
        }
        return results;
    }

    private record Timed(double micros, boolean verified) {
    }

    /** Two endpoints on a fresh simulated fabric, their devices with the given RDMA, driven on a virtual clock. */
    private static final class Pair {

        private final SimFabric fabric;
        private final EfaEndpoint initiator;
        private final EfaEndpoint target;
        private final long toTarget;
        private long now;
        private int completions;
        private boolean failed;

        Pair(long seed, Rdma rdma) {
            fabric = new SimFabric(seed);
            SimDeviceConfig config = SimDeviceConfig.DEFAULT.withCapabilities(rdma.capabilities);
            initiator = new EfaEndpoint(fabric.createDevice(new Gid(0xfe80_0000_0000_0000L, 1), 1, config),
                    EndpointConfig.DEFAULT.withRandomSeed(seed));
            target = new EfaEndpoint(fabric.createDevice(new Gid(0xfe80_0000_0000_0000L, 2), 2, config),
                    EndpointConfig.DEFAULT.withRandomSeed(~seed));
            toTarget = initiator.insert(target.address());
        }

        /** @return the median µs per operation over {@link #BATCHES} batches, after an untimed one */
        Timed time(Case row, int count) {
            ByteBuffer local = ByteBuffer.allocateDirect(row.size);
            ByteBuffer remote = ByteBuffer.allocateDirect(row.size);
            ByteBuffer source = row.read ? remote : local;
            source.put(EfaBench.pattern(row.size, 5)).clear();
            MemoryRegion localRegion = initiator.register(local, EnumSet.of(Access.LOCAL_WRITE));
            MemoryRegion remoteRegion = target.register(remote,
                    EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE));
            RmaIov iov = remoteRegion.iov(0, row.size);
            long before = initiator.statistics().counter(row.counter);
            run(row.read, localRegion, iov, count);
            int perBatch = Math.max(1, count / BATCHES);
            double[] micros = new double[BATCHES];
            for (int batch = 0; batch < BATCHES; batch++) {
                long start = System.nanoTime();
                run(row.read, localRegion, iov, perBatch);
                micros[batch] = (System.nanoTime() - start) / 1e3 / perBatch;
            }
            Arrays.sort(micros);
            long carried = initiator.statistics().counter(row.counter) - before;
            boolean verified = !failed && carried == count + (long) perBatch * BATCHES
                    && local.equals(remote) && local.equals(EfaBench.pattern(row.size, 5));
            initiator.close();
            target.close();
            return new Timed(micros[BATCHES / 2], verified);
        }

        private void run(boolean read, MemoryRegion local, RmaIov remote, int count) {
            for (int i = 0; i < count; i++) {
                int done = completions;
                boolean posted = read ? initiator.read(toTarget, local, 0, remote, i)
                        : initiator.write(toTarget, local, 0, remote, i);
                if (!posted) {
                    throw new IllegalStateException("the endpoint refused an operation with none in flight");
                }
                runUntil(() -> completions > done);
            }
        }

        private void runUntil(BooleanSupplier done) {
            for (long i = 0; !done.getAsBoolean(); i++) {
                if (i > STEP_LIMIT) {
                    throw new IllegalStateException("an RMA operation made no progress");
                }
                now += STEP_NS;
                fabric.progress(now);
                initiator.progress(now);
                target.progress(now);
                initiator.poll(this::completed, Integer.MAX_VALUE);
                target.poll(entry -> failed = true, Integer.MAX_VALUE);
            }
        }

        private void completed(CompletionEntry entry) {
            failed |= !entry.ok();
            completions++;
        }
    }
}
