package org.rpcrdma4j.testbed.demo;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
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
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.efa.EfaFabric;
import org.rpcrdma4j.transport.marshal.ChunkCounters;
import org.rpcrdma4j.transport.marshal.ChunkCounters.Shape;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcClient;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvc;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;

/**
 * The README's demo: the NFSv3 test service served over RPC-over-RDMA on the simulated EFA device,
 * mounted and used by the client helper, the way the Linux client uses an NFS/RDMA server. Files from
 * 1 KiB to 64 MiB are written and read back and their SHA-256 compared, a directory of 2,000 entries is
 * created and listed, a 4,000-byte symbolic link is read back; then it prints what moved how.
 */
public final class NfsDemo {

    private static final int[] FILE_SIZES = {1 << 10, 4 << 10, 64 << 10, 1 << 20, 16 << 20, 64 << 20};
    private static final int IO_SIZE = 1 << 20;
    private static final int DIRECTORY_ENTRIES = 2000;
    private static final int LINK_LENGTH = 4000;
    private static final int BAR_WIDTH = 30;

    private final PrintWriter out;
    private final boolean interactive;
    private final long seed;
    private boolean ok = true;

    /**
     * @param out         where the report goes
     * @param interactive whether to draw progress bars (a terminal) or not (a pipe, a log)
     * @param seed        the seed of the simulation and of the file contents
     */
    public NfsDemo(PrintWriter out, boolean interactive, long seed) {
        this.out = out;
        this.interactive = interactive;
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
                    .withRpcService(nfs, new Nfs3Service(handles)).withDdpPolicy(nfs, new NfsDdpPolicy())
                    .withRpcService(new OncRpcProgram(Nfs3.MOUNT_PROGRAM, Nfs3.MOUNT_V3),
                            new MountService("/export", handles))
                    .build();
            svc.start();
            out.println("rpcrdma4j demo: NFSv3 over RPC-over-RDMA v1 over EFA RDM v4, on the simulated device");
            out.println("server " + network.server().localAddress() + ", client " + network.client().localAddress());
            try (RdmaRpcClient rdma = RdmaRpcClient.connect(network.client(), network.server().localAddress(),
                    TransportConfig.DEFAULT, new NfsDdpPolicy(), Duration.ofSeconds(30))) {
                Nfs3Client client = new Nfs3Client(rdma.transport(), new RpcAuthTypeNone(), 60, TimeUnit.SECONDS);
                byte[] root = client.mount("/export");
                out.println("mounted /export over RDMA (inline thresholds 4096/4096, 128 credits asked)");
                files(client, root);
                directory(client, root);
                symlink(client, root);
                report(rdma.shapes(), network.client(), network.server());
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

    private void files(Nfs3Client client, byte[] root) throws IOException, NoSuchAlgorithmException {
        Random random = new Random(seed);
        long bytes = 0;
        long writeNanos = 0;
        long readNanos = 0;
        for (int size : FILE_SIZES) {
            byte[] data = new byte[size];
            random.nextBytes(data);
            String name = "file-" + size;
            byte[] fh = client.create(root, name);
            String label = String.format("%-6s %7s", "write", human(size));
            long start = System.nanoTime();
            for (int at = 0; at < size; at += IO_SIZE) {
                client.write(fh, at, Arrays.copyOfRange(data, at, Math.min(size, at + IO_SIZE)), Nfs3.UNSTABLE);
                progress(label, at + Math.min(IO_SIZE, size - at), size);
            }
            client.commit(fh);
            long wrote = System.nanoTime() - start;
            label = String.format("%-6s %7s", "read", human(size));
            byte[] back = new byte[size];
            start = System.nanoTime();
            for (int at = 0; at < size; ) {
                byte[] chunk = client.read(fh, at, Math.min(IO_SIZE, size - at)).bytes();
                if (chunk.length == 0) {
                    break;
                }
                System.arraycopy(chunk, 0, back, at, chunk.length);
                at += chunk.length;
                progress(label, at, size);
            }
            long read = System.nanoTime() - start;
            boolean same = sha256(back).equals(sha256(data));
            ok &= same;
            clearProgress();
            out.printf("%-14s %7s  write %7.1f MB/s  read %7.1f MB/s  sha256 %s %s%n", name, human(size),
                    mbps(size, wrote), mbps(size, read), sha256(data).substring(0, 16), same ? "ok" : "MISMATCH");
            bytes += size;
            writeNanos += wrote;
            readNanos += read;
        }
        out.printf("files: %s written at %.1f MB/s and read back at %.1f MB/s%n", human(bytes), mbps(bytes, writeNanos),
                mbps(bytes, readNanos));
    }

    private void directory(Nfs3Client client, byte[] root) throws IOException {
        byte[] dir = client.mkdir(root, "bigdir");
        for (int i = 0; i < DIRECTORY_ENTRIES; i++) {
            client.create(dir, String.format("entry_with_a_longish_name_%04d", i));
            progress("create entries", i + 1, DIRECTORY_ENTRIES);
        }
        clearProgress();
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

    private void report(ChunkCounters shapes, EfaFabric client, EfaFabric server) {
        out.println("what moved how (RPC-over-RDMA, client side):");
        out.printf("  calls:   inline %d, Read chunks %d, Position-zero %d; provided Write chunks %d, Reply chunks %d%n",
                shapes.get(Shape.CALL_INLINE), shapes.get(Shape.CALL_READ_CHUNKS), shapes.get(Shape.CALL_POSITION_ZERO),
                shapes.get(Shape.CALL_WRITE_CHUNKS), shapes.get(Shape.CALL_REPLY_CHUNK));
        out.printf("  replies: inline %d, data in Write chunks %d, whole in Reply chunks %d%n",
                shapes.get(Shape.REPLY_INLINE), shapes.get(Shape.REPLY_WRITE_CHUNKS),
                shapes.get(Shape.REPLY_REPLY_CHUNK));
        out.println("what moved how (EFA RDM protocol, messages sent / RDMA operations started):");
        for (EfaFabric side : new EfaFabric[] {client, server}) {
            out.printf("  %s: eager %d, medium %d, long-CTS %d, long-read %d; RDMA reads %d, writes %d%n",
                    side == client ? "client" : "server", side.counter(EndpointCounter.EAGER_MESSAGES_SENT),
                    side.counter(EndpointCounter.MEDIUM_MESSAGES_SENT),
                    side.counter(EndpointCounter.LONG_CTS_MESSAGES_SENT),
                    side.counter(EndpointCounter.LONG_READ_MESSAGES_SENT),
                    side.counter(EndpointCounter.DIRECT_READS), side.counter(EndpointCounter.DIRECT_WRITES));
        }
    }

    /** Draws a bar on a terminal, redrawing the line; prints nothing elsewhere. */
    private void progress(String label, long done, long total) {
        if (!interactive) {
            return;
        }
        int filled = (int) (BAR_WIDTH * done / Math.max(1, total));
        out.printf("\r%-16s [%s%s] %3d%%", label, "#".repeat(filled), " ".repeat(BAR_WIDTH - filled),
                100 * done / Math.max(1, total));
        out.flush();
    }

    private void clearProgress() {
        if (interactive) {
            out.print("\r" + " ".repeat(60) + "\r");
        }
    }

    private static String sha256(byte[] data) throws NoSuchAlgorithmException {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    }

    private static double mbps(long bytes, long nanos) {
        return bytes / 1e6 / Math.max(1e-9, nanos / 1e9);
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
