package org.rpcrdma4j.testbed.demo;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import org.rpcrdma4j.fabric.FabricStatistics;
import org.rpcrdma4j.testbed.nfs.Nfs3;
import org.rpcrdma4j.testbed.nfs.Nfs3Client;
import org.rpcrdma4j.testbed.nfs.Nfs3Results.Entry;
import org.rpcrdma4j.testbed.term.Progress;
import org.rpcrdma4j.transport.MessageShape;
import org.rpcrdma4j.transport.TransportStatistics;

/**
 * The demo's workload on a mounted export, in a directory of its own ({@value #WORK_DIR}) that it
 * removes at the end: files written, committed and read back, a directory of 2,000 entries created
 * and listed, a 4,000-byte symbolic link read back, then everything removed. The same on the
 * simulated device and against a server on another host.
 *
 * <p>Large files move as the Linux client moves them: READs and WRITEs of the server's largest transfer
 * size with {@value CallsInFlight#IN_FLIGHT} in flight, timed apart from the COMMIT that follows the
 * WRITEs, and reported in MiB/s. Small files are written, committed and read back one call at a time and reported
 * as the median time per call. Files given by the user move as large files do, and the SHA-256 of what
 * came back is printed whole, so that another copy can be checked against it; so are the sorted
 * listing's and the link target's.
 */
public final class NfsWorkload implements MountedWorkload {

    /** The directory the workload makes under the export's root, and removes. */
    public static final String WORK_DIR = "rpcrdma4j-demo";
    private static final int[] SMALL_FILE_SIZES = {1 << 10, 64 << 10, 1 << 20};
    private static final int SMALL_FILES = 20;
    private static final int[] LARGE_FILE_SIZES = {16 << 20, 64 << 20};
    /** An untimed file moved first, so that the timed ones do not pay for class loading and compiling. */
    private static final int WARM_UP_SIZE = 8 << 20;
    private static final int DIRECTORY_ENTRIES = 2000;
    private static final int LINK_LENGTH = 4000;
    /** READDIRPLUS replies of up to 32 KiB: past any inline threshold, so they come in Reply chunks. */
    private static final int LIST_COUNT = 32768;

    private final PrintWriter out;
    private final Progress progress;
    private final long seed;
    private final List<Path> files;
    private final byte[] linkTarget;
    private boolean ok = true;

    /**
     * @param out        where the report goes
     * @param progress   where progress is drawn
     * @param seed       the seed of the generated file contents
     * @param files      files to write and read back instead of generated ones; empty for the generated ones
     * @param linkTarget the symbolic link's target, or {@code null} for a generated one of 4,000 bytes
     */
    public NfsWorkload(PrintWriter out, Progress progress, long seed, List<Path> files, byte[] linkTarget) {
        this.out = out;
        this.progress = progress;
        this.seed = seed;
        this.files = List.copyOf(files);
        this.linkTarget = linkTarget == null ? generatedLinkTarget() : linkTarget.clone();
    }

    private static byte[] generatedLinkTarget() {
        return ("../" + "a".repeat(LINK_LENGTH - 3)).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Runs the workload under {@code root}, which must not hold a {@value #WORK_DIR} yet.
     *
     * @param client the mounted client
     * @param root   the export's root handle
     * @return whether every check passed
     * @throws IOException          if a call fails or a given file cannot be read
     * @throws InterruptedException if interrupted while calls are in flight
     */
    @Override
    public boolean run(Nfs3Client client, byte[] root) throws IOException, InterruptedException {
        int transfer = (int) Math.min(client.fsinfo(root).rtmax, client.fsinfo(root).wtmax);
        byte[] work = client.mkdir(root, WORK_DIR);
        if (files.isEmpty()) {
            largeFiles(client, work, transfer);
            smallFiles(client, work, transfer);
        } else {
            givenFiles(client, work, transfer);
        }
        directory(client, work);
        symlink(client, work);
        long start = System.nanoTime();
        int removed = removeTree(client, work);
        client.rmdir(root, WORK_DIR);
        double seconds = (System.nanoTime() - start) / 1e9;
        int left = client.list(root, false, LIST_COUNT).size();
        out.printf("removed: %d entries and %s in %.1f s; the export's root holds %d entries%n", removed, WORK_DIR,
                seconds, left);
        return ok;
    }

    /** The files given: each written, committed and read back as large files are; SHA-256 printed whole. */
    private void givenFiles(Nfs3Client client, byte[] dir, int transfer)
            throws IOException, InterruptedException {
        out.printf("files, %d calls of %s in flight, data movement and COMMIT timed apart:%n",
                CallsInFlight.IN_FLIGHT, human(transfer));
        for (Path file : files) {
            String name = file.getFileName().toString();
            byte[] data = Files.readAllBytes(file);
            Moved moved = moveFile(client, dir, transfer, data, name);
            out.printf("  %-12s %8s WRITE %7.1f MiB/s   COMMIT %7.1f ms   READ %7.1f MiB/s   sha256 %s %s%n", name,
                    human(data.length), mibps(data.length, moved.writeNanos()), moved.commitNanos() / 1e6,
                    mibps(data.length, moved.readNanos()), moved.readSha256(), moved.same() ? "ok" : "MISMATCH");
            ok &= moved.same();
        }
    }

    /**
     * Files of one call each (two or more where the server's transfer size is smaller): what matters is how long
     * a call takes, so calls go one at a time.
     */
    private void smallFiles(Nfs3Client client, byte[] root, int transfer) throws IOException {
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
                client.writeAll(fh, data, transfer, Nfs3.UNSTABLE);
                long wrote = System.nanoTime();
                client.commit(fh);
                long committed = System.nanoTime();
                byte[] back = client.readAll(fh, transfer);
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
            throws IOException, InterruptedException {
        out.printf("large files, %d calls of %s in flight, data movement and COMMIT timed apart:%n",
                CallsInFlight.IN_FLIGHT, human(transfer));
        SplittableRandom random = new SplittableRandom(~seed);
        ok &= moveFile(client, root, transfer, randomBytes(random, WARM_UP_SIZE), "warm-up").same();
        long bytes = 0;
        long writeNanos = 0;
        long readNanos = 0;
        for (int size : LARGE_FILE_SIZES) {
            Moved moved = moveFile(client, root, transfer, randomBytes(random, size), "large-" + size);
            out.printf("  %-12s WRITE %7.1f MiB/s   COMMIT %7.1f ms   READ %7.1f MiB/s   sha256 %s %s%n", human(size),
                    mibps(size, moved.writeNanos()), moved.commitNanos() / 1e6, mibps(size, moved.readNanos()),
                    moved.readSha256().substring(0, 16), moved.same() ? "ok" : "MISMATCH");
            ok &= moved.same();
            bytes += size;
            writeNanos += moved.writeNanos();
            readNanos += moved.readNanos();
        }
        out.printf("  %-12s WRITE %7.1f MiB/s                       READ %7.1f MiB/s%n", "all " + human(bytes),
                mibps(bytes, writeNanos), mibps(bytes, readNanos));
    }

    /**
     * How one file moved: nanoseconds of its WRITEs, COMMIT and READs, the SHA-256 of what was read back, whether
     * it came back whole.
     */
    private record Moved(long writeNanos, long commitNanos, long readNanos, String readSha256, boolean same) {
    }

    /** Writes, commits and reads back a file, {@value CallsInFlight#IN_FLIGHT} calls in flight. */
    private Moved moveFile(Nfs3Client client, byte[] dir, int transfer, byte[] data, String name)
            throws IOException, InterruptedException {
        int size = data.length;
        byte[] fh = client.create(dir, name);
        String label = "write " + human(size);
        long start = System.nanoTime();
        CallsInFlight.move(size, transfer, label, progress, (at, length, done) -> client.writeAsync(fh, at,
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
        CallsInFlight.move(size, transfer, label, progress, (at, length, done) ->
                client.readAsync(fh, at, length, (r, error) -> {
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
        String readBack = sha256(back);
        return new Moved(wrote, committed, read, readBack, readBack.equals(sha256(data)));
    }

    private void directory(Nfs3Client client, byte[] work) throws IOException {
        byte[] dir = client.mkdir(work, "bigdir");
        long start = System.nanoTime();
        for (int i = 0; i < DIRECTORY_ENTRIES; i++) {
            client.create(dir, String.format("entry_with_a_longish_name_%04d", i));
            progress.show("create entries", i + 1, DIRECTORY_ENTRIES);
        }
        progress.clear();
        long created = System.nanoTime();
        List<Entry> listed = client.list(dir, true, LIST_COUNT);
        long done = System.nanoTime();
        boolean complete = listed.size() == DIRECTORY_ENTRIES;
        ok &= complete;
        out.printf("bigdir: %d entries created in %.1f s, READDIRPLUS listed %d %s in %.1f s, names sha256 %s%n",
                DIRECTORY_ENTRIES, (created - start) / 1e9, listed.size(), complete ? "ok" : "MISSING ENTRIES",
                (done - created) / 1e9, namesSha256(listed));
    }

    /** The SHA-256 of the names sorted bytewise, each followed by a newline: {@code ls | LC_ALL=C sort | sha256sum}. */
    static String namesSha256(List<Entry> entries) {
        MessageDigest digest = sha256Digest();
        entries.stream().map(Entry::rawName).sorted(Arrays::compareUnsigned).forEach(name -> {
            digest.update(name);
            digest.update((byte) '\n');
        });
        return HexFormat.of().formatHex(digest.digest());
    }

    private void symlink(Nfs3Client client, byte[] work) throws IOException {
        client.symlink(work, "link".getBytes(StandardCharsets.US_ASCII), linkTarget);
        byte[] back = client.readlinkBytes(client.lookup(work, "link"));
        boolean same = Arrays.equals(back, linkTarget);
        ok &= same;
        out.printf("link: a %d-byte symbolic link target, %d bytes read back, sha256 %s %s%n", linkTarget.length,
                back.length, HexFormat.of().formatHex(sha256Digest().digest(back)), same ? "ok" : "DIFFERENT");
    }

    /** Removes what {@code dir} holds, directories depth first; returns how many entries went. */
    private int removeTree(Nfs3Client client, byte[] dir) throws IOException {
        int removed = 0;
        List<Entry> entries = client.list(dir, true, LIST_COUNT);
        int done = 0;
        for (Entry entry : entries) {
            boolean directory = entry.attr() != null ? entry.attr().type == Nfs3.NF3DIR
                    : client.getattr(client.lookup(dir, entry.rawName())).type == Nfs3.NF3DIR;
            if (directory) {
                byte[] sub = entry.fh() != null ? entry.fh() : client.lookup(dir, entry.rawName());
                removed += removeTree(client, sub);
                client.rmdir(dir, entry.name());
            } else {
                client.remove(dir, entry.rawName());
            }
            removed++;
            progress.show("remove entries", ++done, entries.size());
        }
        progress.clear();
        return removed;
    }

    /**
     * @param fabric a fabric's statistics
     * @return one line of them: connections, registrations, the counters that are not 0, the gauges
     */
    public static String fabricSummary(FabricStatistics fabric) {
        StringBuilder line = new StringBuilder("fabric: ").append(fabric.connections()).append(" connections, ")
                .append(fabric.registrations()).append(" registrations");
        fabric.counters().forEach((name, value) -> {
            if (value != 0) {
                line.append(", ").append(name).append('=').append(value);
            }
        });
        fabric.gauges().forEach((name, value) -> line.append(", ").append(name).append('=').append(value));
        return line.toString();
    }

    /** How the calls of the workload and their replies travelled, as the client's transport counted them. */
    public static void reportShapes(PrintWriter out, TransportStatistics client) {
        out.println("what moved how (RPC-over-RDMA, client side):");
        out.printf("  calls:   inline %d, Read chunks %d, Position-zero %d; provided Write chunks %d, Reply chunks %d%n",
                client.shape(MessageShape.CALL_INLINE), client.shape(MessageShape.CALL_READ_CHUNKS),
                client.shape(MessageShape.CALL_POSITION_ZERO), client.shape(MessageShape.CALL_WRITE_CHUNKS),
                client.shape(MessageShape.CALL_REPLY_CHUNK));
        out.printf("  replies: inline %d, data in Write chunks %d, whole in Reply chunks %d%n",
                client.shape(MessageShape.REPLY_INLINE), client.shape(MessageShape.REPLY_WRITE_CHUNKS),
                client.shape(MessageShape.REPLY_REPLY_CHUNK));
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

    private static String sha256(byte[] data) {
        return HexFormat.of().formatHex(sha256Digest().digest(data));
    }

    private static MessageDigest sha256Digest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    private static double mibps(long bytes, long nanos) {
        return bytes / (double) (1 << 20) / Math.max(1e-9, nanos / 1e9);
    }

    static String human(long bytes) {
        return bytes >= 1 << 20 ? (bytes >> 20) + " MiB" : bytes >= 1 << 10 ? (bytes >> 10) + " KiB" : bytes + " B";
    }

}
