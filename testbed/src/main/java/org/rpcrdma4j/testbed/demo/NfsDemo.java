package org.rpcrdma4j.testbed.demo;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.nfs.NfsDdpPolicy;
import org.rpcrdma4j.testbed.nfs.FileHandles;
import org.rpcrdma4j.testbed.nfs.MountService;
import org.rpcrdma4j.testbed.nfs.Nfs3;
import org.rpcrdma4j.testbed.nfs.Nfs3Client;
import org.rpcrdma4j.testbed.nfs.Nfs3Service;
import org.rpcrdma4j.testbed.sim.SimulatedNetwork;
import org.rpcrdma4j.testbed.term.Progress;
import org.rpcrdma4j.transport.FabricAddress;
import org.rpcrdma4j.transport.MessageShape;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.TransportStatistics;
import org.rpcrdma4j.transport.efa.EfaFabric;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcClient;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvc;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;

/**
 * The README's demo: the NFSv3 test service served over RPC-over-RDMA on the simulated EFA device,
 * mounted and used by the client helper, the way the Linux client uses an NFS/RDMA server. Everything
 * runs in this JVM: the simulated fabric stands in for the RDMA hardware and the network.
 *
 * <p>Large files move as the Linux client moves them: READs and WRITEs of the server's largest transfer
 * size with {@value #IN_FLIGHT} in flight, timed apart from the COMMIT that follows the WRITEs, and
 * reported in MiB/s. Small files are written, committed and read back one call at a time and reported
 * as the median time per call. Every file's SHA-256 is compared once its timing is done. Then a
 * directory of 2,000 entries is created and listed, a 4,000-byte symbolic link is read back, and what
 * moved how is printed.
 */
public final class NfsDemo {

    private static final int[] SMALL_FILE_SIZES = {1 << 10, 64 << 10, 1 << 20};
    private static final int SMALL_FILES = 20;
    private static final int[] LARGE_FILE_SIZES = {16 << 20, 64 << 20};
    /** An untimed file moved first, so that the timed ones do not pay for class loading and compiling. */
    private static final int WARM_UP_SIZE = 8 << 20;
    /** Calls in flight for large files: what the Linux client keeps outstanding on one file by default. */
    private static final int IN_FLIGHT = 16;
    private static final int DIRECTORY_ENTRIES = 2000;
    private static final int LINK_LENGTH = 4000;
    private static final long CALL_TIMEOUT_S = 60;

    private final PrintWriter out;
    private final Progress progress;
    private final long seed;
    private boolean ok = true;

    /**
     * @param out         where the report goes
     * @param interactive whether to draw progress bars (a terminal) or not (a pipe, a log)
     * @param seed        the seed of the simulation and of the file contents
     */
    public NfsDemo(PrintWriter out, boolean interactive, long seed) {
        this.out = out;
        this.progress = new Progress(out, interactive);
        this.seed = seed;
    }

    /**
     * Runs the demo in a fresh temporary export directory, deleted afterwards.
     *
     * @return whether every check passed
     * @throws Exception if the service or a call fails
     */
    public boolean run() throws Exception {
        Path export = Files.createTempDirectory("rpcrdma4j-demo");
        ExecutorService workers = Executors.newFixedThreadPool(4);
        try (SimulatedNetwork network = new SimulatedNetwork(seed)) {
            FileHandles handles = new FileHandles(export, 100_000);
            OncRpcProgram nfs = new OncRpcProgram(Nfs3.NFS_PROGRAM, Nfs3.NFS_V3);
            RdmaRpcSvc svc = new RdmaRpcSvcBuilder().withFabric(network.server()).withConfig(TransportConfig.DEFAULT)
                    .withWorkerThreadExecutionService(workers)
                    .withRpcService(nfs, new Nfs3Service(handles)).withDdpPolicy(new NfsDdpPolicy())
                    .withRpcService(new OncRpcProgram(Nfs3.MOUNT_PROGRAM, Nfs3.MOUNT_V3),
                            new MountService("/export", handles))
                    .build();
            svc.start();
            out.println("rpcrdma4j demo: NFSv3 over RPC-over-RDMA v1 over EFA RDM v4, simulated in one JVM "
                    + "(no RDMA device, no network)");
            out.println("server " + readable(network.server().localAddress()) + ", client "
                    + readable(network.client().localAddress()) + " (simulated EFA endpoints: GID and QP number)");
            try (RdmaRpcClient rdma = RdmaRpcClient.connect(network.client(), network.server().localAddress(),
                    TransportConfig.DEFAULT, new NfsDdpPolicy(), Duration.ofSeconds(30))) {
                Nfs3Client client = new Nfs3Client(rdma.transport(), new RpcAuthTypeNone(), CALL_TIMEOUT_S,
                        TimeUnit.SECONDS);
                byte[] root = client.mount("/export");
                int transfer = (int) Math.min(client.fsinfo(root).rtmax, client.fsinfo(root).wtmax);
                out.println("mounted /export over RDMA (inline thresholds 4096/4096, 128 credits asked); "
                        + "largest READ and WRITE " + human(transfer));
                largeFiles(client, root, transfer);
                smallFiles(client, root);
                directory(client, root);
                symlink(client, root);
                report(rdma.statistics(), network.client(), network.server());
            } finally {
                svc.stop();
            }
        } finally {
            workers.shutdownNow();
            deleteTree(export);
        }
        out.println(ok ? "all checks passed" : "SOME CHECKS FAILED");
        out.flush();
        return ok;
    }

    /** Files of one call each: what matters is how long a call takes, so calls go one at a time. */
    private void smallFiles(Nfs3Client client, byte[] root) throws IOException, NoSuchAlgorithmException {
        out.printf("small files, one call at a time, median time per call:%n");
        SplittableRandom random = new SplittableRandom(seed);
        for (int size : SMALL_FILE_SIZES) {
            long[] writes = new long[SMALL_FILES];
            long[] commits = new long[SMALL_FILES];
            long[] reads = new long[SMALL_FILES];
            int same = 0;
            String label = String.format("%d x %s", SMALL_FILES, human(size));
            for (int i = 0; i < SMALL_FILES; i++) {
                byte[] data = randomBytes(random, size);
                byte[] fh = client.create(root, "small-" + size + "-" + i);
                long start = System.nanoTime();
                client.write(fh, 0, data, Nfs3.UNSTABLE);
                long wrote = System.nanoTime();
                client.commit(fh);
                long committed = System.nanoTime();
                byte[] back = client.read(fh, 0, size).bytes();
                long read = System.nanoTime();
                writes[i] = wrote - start;
                commits[i] = committed - wrote;
                reads[i] = read - committed;
                if (sha256(back).equals(sha256(data))) {
                    same++;
                }
                progress.show(label, i + 1, SMALL_FILES);
            }
            progress.clear();
            ok &= same == SMALL_FILES;
            out.printf("  %-12s WRITE %7.1f us   COMMIT %7.1f us   READ %7.1f us   sha256 %d of %d %s%n", label,
                    median(writes) / 1e3, median(commits) / 1e3, median(reads) / 1e3, same, SMALL_FILES,
                    same == SMALL_FILES ? "ok" : "MISMATCH");
        }
    }

    /** Files of many calls: calls of the largest transfer size, several in flight, as the Linux client sends. */
    private void largeFiles(Nfs3Client client, byte[] root, int transfer)
            throws IOException, NoSuchAlgorithmException, InterruptedException {
        out.printf("large files, %d calls of %s in flight, data movement and COMMIT timed apart:%n", IN_FLIGHT,
                human(transfer));
        SplittableRandom random = new SplittableRandom(~seed);
        ok &= moveFile(client, root, transfer, random, WARM_UP_SIZE, "warm-up").same();
        long bytes = 0;
        long writeNanos = 0;
        long readNanos = 0;
        for (int size : LARGE_FILE_SIZES) {
            Moved moved = moveFile(client, root, transfer, random, size, "large-" + size);
            out.printf("  %-12s WRITE %7.1f MiB/s   COMMIT %7.1f ms   READ %7.1f MiB/s   sha256 %s %s%n", human(size),
                    mibps(size, moved.writeNanos()), moved.commitNanos() / 1e6, mibps(size, moved.readNanos()),
                    moved.sha256().substring(0, 16), moved.same() ? "ok" : "MISMATCH");
            ok &= moved.same();
            bytes += size;
            writeNanos += moved.writeNanos();
            readNanos += moved.readNanos();
        }
        out.printf("  %-12s WRITE %7.1f MiB/s                       READ %7.1f MiB/s%n", "all " + human(bytes),
                mibps(bytes, writeNanos), mibps(bytes, readNanos));
    }

    /** How one file moved: nanoseconds of its WRITEs, COMMIT and READs, its SHA-256, whether it came back whole. */
    private record Moved(long writeNanos, long commitNanos, long readNanos, String sha256, boolean same) {
    }

    /** Writes, commits and reads back a file of random bytes, {@value #IN_FLIGHT} calls in flight. */
    private Moved moveFile(Nfs3Client client, byte[] root, int transfer, SplittableRandom random, int size,
            String name) throws IOException, NoSuchAlgorithmException, InterruptedException {
        byte[] data = randomBytes(random, size);
        byte[] fh = client.create(root, name);
        String label = "write " + human(size);
        long start = System.nanoTime();
        inFlight(size, transfer, label, (at, length, done) -> client.writeAsync(fh, at,
                ByteBuffer.wrap(data, (int) at, length), Nfs3.UNSTABLE, (w, error) -> {
                    if (error == null && w.count != length) {
                        error = new IOException("WRITE at " + at + " wrote " + w.count + " of " + length);
                    }
                    done.accept(length, error);
                }));
        long wrote = System.nanoTime() - start;
        start = System.nanoTime();
        client.commit(fh);
        long committed = System.nanoTime() - start;
        byte[] back = new byte[size];
        label = "read " + human(size);
        start = System.nanoTime();
        inFlight(size, transfer, label, (at, length, done) -> client.readAsync(fh, at, length, (r, error) -> {
            if (error == null && r.count != length) {
                error = new IOException("READ at " + at + " returned " + r.count + " of " + length);
            }
            if (error == null) {
                r.data.duplicate().get(back, (int) at, length);
            }
            done.accept(length, error);
        }));
        long read = System.nanoTime() - start;
        progress.clear();
        String digest = sha256(data);
        return new Moved(wrote, committed, read, digest, sha256(back).equals(digest));
    }

    /** Starts one call of a file's transfer; reports through {@code done} once it has finished. */
    @FunctionalInterface
    private interface Transfer {
        void start(long at, int length, Done done) throws IOException;
    }

    /** Called on the reply thread with the bytes a call moved, or why it failed. */
    @FunctionalInterface
    private interface Done {
        void accept(int length, Throwable error);
    }

    /**
     * Moves {@code size} bytes in calls of {@code transfer} bytes, {@value #IN_FLIGHT} in flight, and waits
     * for the last.
     */
    private void inFlight(long size, int transfer, String label, Transfer call)
            throws IOException, InterruptedException {
        Semaphore window = new Semaphore(IN_FLIGHT);
        AtomicLong moved = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (long at = 0; at < size && failure.get() == null; at += transfer) {
            if (!window.tryAcquire(CALL_TIMEOUT_S, TimeUnit.SECONDS)) {
                throw new IOException(label + ": no reply in " + CALL_TIMEOUT_S + " s");
            }
            progress.show(label, moved.get(), size);
            call.start(at, (int) Math.min(transfer, size - at), (length, error) -> {
                if (error != null) {
                    failure.compareAndSet(null, error);
                } else {
                    moved.addAndGet(length);
                }
                window.release();
            });
        }
        if (!window.tryAcquire(IN_FLIGHT, CALL_TIMEOUT_S, TimeUnit.SECONDS)) {
            throw new InterruptedIOException(label + ": no reply in " + CALL_TIMEOUT_S + " s");
        }
        progress.show(label, moved.get(), size);
        if (failure.get() != null) {
            throw new IOException(label + " failed: " + failure.get().getMessage(), failure.get());
        }
    }

    private void directory(Nfs3Client client, byte[] root) throws IOException {
        byte[] dir = client.mkdir(root, "bigdir");
        for (int i = 0; i < DIRECTORY_ENTRIES; i++) {
            client.create(dir, String.format("entry_with_a_longish_name_%04d", i));
            progress.show("create entries", i + 1, DIRECTORY_ENTRIES);
        }
        progress.clear();
        int listed = client.list(dir, true, 32768).size();
        boolean complete = listed == DIRECTORY_ENTRIES;
        ok &= complete;
        out.printf("bigdir: %d entries created, READDIRPLUS listed %d %s%n", DIRECTORY_ENTRIES, listed,
                complete ? "ok" : "MISSING ENTRIES");
    }

    private void symlink(Nfs3Client client, byte[] root) throws IOException {
        String target = "../" + "a".repeat(LINK_LENGTH - 3);
        client.symlink(root, "link", target);
        boolean same = client.readlink(client.lookup(root, "link")).equals(target);
        ok &= same;
        out.printf("link: a %d-byte symbolic link read back %s%n", LINK_LENGTH, same ? "ok" : "DIFFERENT");
    }

    private void report(TransportStatistics shapes, EfaFabric client, EfaFabric server) {
        out.println("what moved how (RPC-over-RDMA, client side):");
        out.printf("  calls:   inline %d, Read chunks %d, Position-zero %d; provided Write chunks %d, Reply chunks %d%n",
                shapes.shape(MessageShape.CALL_INLINE), shapes.shape(MessageShape.CALL_READ_CHUNKS),
                shapes.shape(MessageShape.CALL_POSITION_ZERO), shapes.shape(MessageShape.CALL_WRITE_CHUNKS),
                shapes.shape(MessageShape.CALL_REPLY_CHUNK));
        out.printf("  replies: inline %d, data in Write chunks %d, whole in Reply chunks %d%n",
                shapes.shape(MessageShape.REPLY_INLINE), shapes.shape(MessageShape.REPLY_WRITE_CHUNKS),
                shapes.shape(MessageShape.REPLY_REPLY_CHUNK));
        out.println("what moved how (EFA RDM protocol, messages sent / RDMA operations started):");
        for (EfaFabric side : new EfaFabric[] {client, server}) {
            TransportStatistics at = side.statistics();
            out.printf("  %s: eager %d, medium %d, long-CTS %d, long-read %d; RDMA reads %d, writes %d%n",
                    side == client ? "client" : "server", at.fabricCounter(EndpointCounter.EAGER_MESSAGES_SENT.name()),
                    at.fabricCounter(EndpointCounter.MEDIUM_MESSAGES_SENT.name()),
                    at.fabricCounter(EndpointCounter.LONG_CTS_MESSAGES_SENT.name()),
                    at.fabricCounter(EndpointCounter.LONG_READ_MESSAGES_SENT.name()),
                    at.fabricCounter(EndpointCounter.DIRECT_READS.name()),
                    at.fabricCounter(EndpointCounter.DIRECT_WRITES.name()));
        }
    }

    /** An EFA address as people write one: the GID in IPv6's short form, and the QP number. */
    static String readable(FabricAddress address) {
        return shortIpv6(address.inetAddress()) + " QPN " + address.number();
    }

    /** RFC 5952's form: the longest run of two or more zero groups becomes "::". */
    static String shortIpv6(InetAddress address) {
        String[] groups = address.getHostAddress().split(":");
        int bestAt = -1;
        int bestLength = 1;
        for (int i = 0; i < groups.length; ) {
            int j = i;
            while (j < groups.length && groups[j].equals("0")) {
                j++;
            }
            if (j - i > bestLength) {
                bestAt = i;
                bestLength = j - i;
            }
            i = Math.max(j, i + 1);
        }
        if (bestAt < 0) {
            return String.join(":", groups);
        }
        return String.join(":", Arrays.copyOfRange(groups, 0, bestAt)) + "::"
                + String.join(":", Arrays.copyOfRange(groups, bestAt + bestLength, groups.length));
    }

    /** File contents: eight random bytes at a time, as java.util.Random's four at a time costs more than the I/O. */
    private static byte[] randomBytes(SplittableRandom random, int size) {
        byte[] data = new byte[size];
        ByteBuffer bytes = ByteBuffer.wrap(data);
        while (bytes.remaining() >= Long.BYTES) {
            bytes.putLong(random.nextLong());
        }
        while (bytes.hasRemaining()) {
            bytes.put((byte) random.nextInt());
        }
        return data;
    }

    private static double median(long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2.0;
    }

    private static String sha256(byte[] data) throws NoSuchAlgorithmException {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    }

    private static double mibps(long bytes, long nanos) {
        return bytes / (double) (1 << 20) / Math.max(1e-9, nanos / 1e9);
    }

    private static String human(long bytes) {
        return bytes >= 1 << 20 ? (bytes >> 20) + " MiB" : bytes >= 1 << 10 ? (bytes >> 10) + " KiB" : bytes + " B";
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
