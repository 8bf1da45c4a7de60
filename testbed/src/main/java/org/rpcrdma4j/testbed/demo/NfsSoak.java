package org.rpcrdma4j.testbed.demo;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.rpcrdma4j.testbed.nfs.Nfs3;
import org.rpcrdma4j.testbed.nfs.Nfs3Client;
import org.rpcrdma4j.testbed.term.Progress;

/**
 * A long run of NFS WRITE and READ on a mounted export (issue 23 §3's soak): one file of {@value #FILE_MIB} MiB,
 * written whole and read back whole, pass after pass, with calls of the server's transfer size,
 * {@value CallsInFlight#IN_FLIGHT} in flight, until the bytes asked for have moved both ways. Every pass writes
 * other bytes (a pattern drawn from the seed, the pass and the offset), and every byte read back is compared
 * with what was written: one that differs is corrupted, one a READ did not return is lost. The heap used after a
 * full GC is taken at the end of the first pass that ends a minute or more into the run (of the first pass, in a
 * shorter run) and at the end; it may grow by {@value #HEAP_GROWTH_BOUND_MIB} MiB at most.
 */
public final class NfsSoak implements MountedWorkload {

    /** The directory the soak makes under the export's root, and removes. */
    public static final String WORK_DIR = "rpcrdma4j-soak";
    static final int FILE_MIB = 64;
    /** How much the heap used after GC may grow between the first minute and the end. */
    static final long HEAP_GROWTH_BOUND_MIB = 16;
    private static final long FIRST_MINUTE_NS = TimeUnit.MINUTES.toNanos(1);

    private final PrintWriter out;
    private final Progress progress;
    private final long bytes;
    private final long seed;

    /**
     * @param out      where the report goes
     * @param progress where progress is drawn
     * @param bytes    how much to move: WRITEs and READs together
     * @param seed     the seed of the file contents
     */
    public NfsSoak(PrintWriter out, Progress progress, long bytes, long seed) {
        this.out = out;
        this.progress = progress;
        this.bytes = bytes;
        this.seed = seed;
    }

    @Override
    public boolean run(Nfs3Client client, byte[] root) throws IOException, InterruptedException {
        int transfer = (int) Math.min(client.fsinfo(root).rtmax, client.fsinfo(root).wtmax);
        long size = (long) FILE_MIB << 20;
        byte[] dir = client.mkdir(root, WORK_DIR);
        byte[] fh = client.create(dir, "soak");
        out.printf("soak: %s through NFS WRITE and READ of a %d MiB file, %d calls of %s in flight, every byte "
                + "checked%n", NfsWorkload.human(bytes), FILE_MIB, CallsInFlight.IN_FLIGHT,
                NfsWorkload.human(transfer));
        out.flush();
        long start = System.nanoTime();
        long moved = 0;
        long corrupted = 0;
        long lost = 0;
        long heapFirst = -1;
        long heapAtFirstPass = -1;
        for (int pass = 0; moved < bytes; pass++) {
            int written = pass;
            CallsInFlight.move(size, transfer, "soak write", progress, (at, length, done) ->
                    client.writeAsync(fh, at, pattern(written, at, length), Nfs3.UNSTABLE, (w, error) -> {
                        if (error == null && w.count != length) {
                            error = new IOException("WRITE at " + at + " wrote " + w.count + " of " + length);
                        }
                        done.accept(length, error);
                    }));
            client.commit(fh);
            AtomicLong differing = new AtomicLong();
            AtomicLong missing = new AtomicLong();
            CallsInFlight.move(size, transfer, "soak read", progress, (at, length, done) ->
                    client.readAsync(fh, at, length, (r, error) -> {
                        if (error == null) {
                            ByteBuffer expected = pattern(written, at, length);
                            ByteBuffer got = r.data.duplicate();
                            missing.addAndGet(Math.max(0, length - got.remaining()));
                            differing.addAndGet(differingBytes(expected, got));
                        }
                        done.accept(length, error);
                    }));
            progress.clear();
            moved += 2 * size;
            corrupted += differing.get();
            lost += missing.get();
            long elapsed = System.nanoTime() - start;
            if (heapAtFirstPass < 0) {
                heapAtFirstPass = heapAfterGc();
            }
            if (heapFirst < 0 && elapsed >= FIRST_MINUTE_NS) {
                heapFirst = heapAfterGc();
            }
            out.printf("  pass %d: %s moved in %.1f s, %.1f MiB/s, %d bytes corrupted, %d lost%n", pass + 1,
                    NfsWorkload.human(moved), elapsed / 1e9, moved / (double) (1 << 20) / (elapsed / 1e9), corrupted,
                    lost);
            out.flush();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long heapLast = heapAfterGc();
        long heapFrom = heapFirst >= 0 ? heapFirst : heapAtFirstPass;
        boolean heapHeld = heapLast - heapFrom <= HEAP_GROWTH_BOUND_MIB << 20;
        client.remove(dir, "soak");
        client.rmdir(root, WORK_DIR);
        out.printf("soak: %s moved in %.1f s (%.1f MiB/s), %d bytes corrupted, %d lost; heap used after GC %.1f MiB "
                + "at %s, %.1f MiB at the end (at most %d MiB more allowed) %s%n", NfsWorkload.human(moved), seconds,
                moved / (double) (1 << 20) / seconds, corrupted, lost, heapFrom / (double) (1 << 20),
                heapFirst >= 0 ? "the first minute" : "the first pass", heapLast / (double) (1 << 20),
                HEAP_GROWTH_BOUND_MIB, heapHeld ? "ok" : "GREW");
        return corrupted == 0 && lost == 0 && heapHeld;
    }

    /** The bytes of pass {@code pass} at {@code at}: the same for the WRITE and for the check of the READ. */
    private ByteBuffer pattern(int pass, long at, int length) {
        SplittableRandom random = new SplittableRandom(seed ^ ((long) pass << 40) ^ at);
        ByteBuffer data = ByteBuffer.allocate(length);
        while (data.remaining() >= Long.BYTES) {
            data.putLong(random.nextLong());
        }
        while (data.hasRemaining()) {
            data.put((byte) random.nextInt());
        }
        return data.flip();
    }

    /** @return how many of the bytes both buffers hold differ */
    private static long differingBytes(ByteBuffer expected, ByteBuffer got) {
        long differing = 0;
        int n = Math.min(expected.remaining(), got.remaining());
        for (int i = 0; i < n; i++) {
            if (expected.get(expected.position() + i) != got.get(got.position() + i)) {
                differing++;
            }
        }
        return differing;
    }

    private static long heapAfterGc() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
