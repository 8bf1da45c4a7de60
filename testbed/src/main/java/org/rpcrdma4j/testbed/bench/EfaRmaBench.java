package org.rpcrdma4j.testbed.bench;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.rpcrdma4j.efa.AtomicDatatype;
import org.rpcrdma4j.efa.AtomicOp;
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
 * devices with RDMA read and write (a direct RDMA read or write); a fetch-and-add atomic, always emulated, beside
 * a direct read of its 8 bytes. The device adds no delay, so the figures are the software's: packets built,
 * parsed and copied against one device operation.
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

    /** What a row does. */
    private enum Operation {
        WRITE, READ, FETCH_ADD;

        String label() {
            return this == FETCH_ADD ? "fetch-add" : name().toLowerCase(Locale.ROOT);
        }
    }

    /** One row: an operation and size, the devices that make the endpoint emulate it, and how. */
    private record Case(Operation operation, int size, Rdma devices, String subprotocol, EndpointCounter counter) {
    }

    /** The rows, in the order they run and print. */
    private static final List<Case> CASES = List.of(
            new Case(Operation.WRITE, SMALL, Rdma.NONE, "EAGER_RTW", EndpointCounter.EAGER_RTW_WRITES),
            new Case(Operation.WRITE, LARGE, Rdma.NONE, "LONGCTS_RTW", EndpointCounter.LONGCTS_RTW_WRITES),
            new Case(Operation.WRITE, LARGE, Rdma.READ, "LONGREAD_RTW", EndpointCounter.LONGREAD_RTW_WRITES),
            new Case(Operation.READ, SMALL, Rdma.NONE, "SHORT_RTR", EndpointCounter.SHORT_RTR_READS),
            new Case(Operation.READ, LARGE, Rdma.NONE, "LONGCTS_RTR", EndpointCounter.LONGCTS_RTR_READS),
            new Case(Operation.FETCH_ADD, Long.BYTES, Rdma.READ_WRITE, "FETCH_RTA",
                    EndpointCounter.FETCH_RTA_ATOMICS));

    /** Rows of a whole run. */
    public static final int ROWS = CASES.size();

    /**
     * One row.
     *
     * @param operation   "write", "read" or "fetch-add" (a 64-bit fetch-and-add of 1)
     * @param size        bytes per operation
     * @param subprotocol what carried the emulated operation
     * @param emulatedUs  µs per emulated operation
     * @param directUs    µs per direct RDMA operation of the same size, in the same run (a read for a fetch-add)
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
            String operation = row.operation.label();
            listener.starting(index++, operation + " " + row.size + " " + row.subprotocol);
            int count = row.size == LARGE ? (int) Math.max(1, largeBytes / LARGE) : iterations;
            Timed emulated = new Pair(seed, row.devices).time(row, count);
            boolean write = row.operation == Operation.WRITE;
            Timed direct = new Pair(seed, Rdma.READ_WRITE).time(new Case(write ? Operation.WRITE : Operation.READ,
                    row.size, Rdma.READ_WRITE, "direct", write ? EndpointCounter.DIRECT_WRITES
                    : EndpointCounter.DIRECT_READS), count);
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
            ByteBuffer local = ByteBuffer.allocateDirect(row.size).order(ByteOrder.LITTLE_ENDIAN);
            ByteBuffer remote = ByteBuffer.allocateDirect(row.size).order(ByteOrder.LITTLE_ENDIAN);
            ByteBuffer source = row.operation == Operation.WRITE ? local : remote;
            source.put(EfaBench.pattern(row.size, 5)).clear();
            long initial = source.getLong(0);
            MemoryRegion localRegion = initiator.register(local, EnumSet.of(Access.LOCAL_WRITE));
            MemoryRegion remoteRegion = target.register(remote,
                    EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE));
            RmaIov iov = remoteRegion.iov(0, row.size);
            long before = initiator.statistics().counter(row.counter);
            run(row.operation, localRegion, local, iov, count);
            int perBatch = Math.max(1, count / BATCHES);
            double[] micros = new double[BATCHES];
            for (int batch = 0; batch < BATCHES; batch++) {
                long start = System.nanoTime();
                run(row.operation, localRegion, local, iov, perBatch);
                micros[batch] = (System.nanoTime() - start) / 1e3 / perBatch;
            }
            Arrays.sort(micros);
            long operations = count + (long) perBatch * BATCHES;
            long carried = initiator.statistics().counter(row.counter) - before;
            // A fetch-add's target holds the start plus one per operation, and its last result the value before.
            boolean landed = row.operation == Operation.FETCH_ADD
                    ? remote.getLong(0) == initial + operations && local.getLong(0) == initial + operations - 1
                    : local.equals(remote) && local.equals(EfaBench.pattern(row.size, 5));
            boolean verified = !failed && carried == operations && landed;
            initiator.close();
            target.close();
            return new Timed(micros[BATCHES / 2], verified);
        }

        private void run(Operation operation, MemoryRegion local, ByteBuffer localBytes, RmaIov remote, int count) {
            ByteBuffer one = ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN).putLong(0, 1);
            for (int i = 0; i < count; i++) {
                int done = completions;
                boolean posted = switch (operation) {
                    case READ -> initiator.read(toTarget, local, 0, remote, i);
                    case WRITE -> initiator.write(toTarget, local, 0, remote, i);
                    case FETCH_ADD -> initiator.fetchAtomic(toTarget, one, localBytes, remote, AtomicDatatype.UINT64,
                            AtomicOp.SUM, i);
                };
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
