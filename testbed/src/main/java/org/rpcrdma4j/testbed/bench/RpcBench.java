package org.rpcrdma4j.testbed.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.CompletionHandler;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.ObjIntConsumer;
import java.util.stream.Stream;
import org.dcache.oncrpc4j.rpc.OncRpcClient;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.OncRpcSvc;
import org.dcache.oncrpc4j.rpc.OncRpcSvcBuilder;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcReply;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.rpc.net.IpProtocolType;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.rpcrdma4j.nfs.NfsDdpPolicy;
import org.rpcrdma4j.testbed.nfs.FileHandles;
import org.rpcrdma4j.testbed.nfs.MountService;
import org.rpcrdma4j.testbed.nfs.Nfs3;
import org.rpcrdma4j.testbed.nfs.Nfs3Client;
import org.rpcrdma4j.testbed.nfs.Nfs3Service;
import org.rpcrdma4j.testbed.sim.SimulatedNetwork;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcClient;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvc;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvcBuilder;

/**
 * The same oncrpc4j program, the testbed's NFSv3 service over a file in a temporary export, served
 * over oncrpc4j's TCP transport on loopback and over rpcrdma4j on the simulated EFA device, in one
 * run, each with a pool of {@value #WORKERS} workers: NFS NULL at queue depth 1 and 32, and NFS READ and WRITE (UNSTABLE)
 * of 4 KiB, 64 KiB and 1 MiB at queue depth 1. Over RDMA, READ data comes back in a Write chunk and
 * WRITE data goes in a Read chunk once over the inline threshold (RFC 8267).
 *
 * <p>Over RDMA each run also reports the bytes the transport copied per call on the server's and the
 * client's side, as the transport counts them ({@code TransportStatistics.bytesCopied} of the service and the client).
 *
 * <p>On each transport every workload first runs unmeasured for a third of its time to warm up, then
 * each runs for its time. The data of every READ is compared with the file's; every WRITE must report
 * its whole count written.
 */
public final class RpcBench {

    /** What a run does: a procedure, its size and how many calls are in flight. */
    public enum Workload {
        NULL_QD1("null-qd1", Nfs3.NFSPROC3_NULL, 0, 1),
        NULL_QD32("null-qd32", Nfs3.NFSPROC3_NULL, 0, 32),
        READ_4K("read-4k", Nfs3.NFSPROC3_READ, 4 << 10, 1),
        READ_64K("read-64k", Nfs3.NFSPROC3_READ, 64 << 10, 1),
        READ_1M("read-1m", Nfs3.NFSPROC3_READ, 1 << 20, 1),
        WRITE_4K("write-4k", Nfs3.NFSPROC3_WRITE, 4 << 10, 1),
        WRITE_64K("write-64k", Nfs3.NFSPROC3_WRITE, 64 << 10, 1),
        WRITE_1M("write-1m", Nfs3.NFSPROC3_WRITE, 1 << 20, 1);

        private final String label;
        private final int procedure;
        private final int size;
        private final int depth;

        Workload(String label, int procedure, int size, int depth) {
            this.label = label;
            this.procedure = procedure;
            this.size = size;
            this.depth = depth;
        }

        /** @return the name in the report */
        public String label() {
            return label;
        }
    }

    /**
     * One measured run.
     *
     * @param transport "tcp" or "rdma-sim"
     * @param workload  the workload's label
     * @param latencyUs mean time from a call to its reply
     * @param opsPerSec calls completed per second
     * @param mbPerSec  data moved per second (10^6 bytes), 0 for NULL
     * @param verified  whether every reply was right
     * @param copies    bytes the transport copied per call on each side, as it counts them; {@code null}
     *                  for TCP, which does not count
     */
    public record Run(String transport, String workload, double latencyUs, double opsPerSec, double mbPerSec,
                      boolean verified, Copies copies) {
    }

    /**
     * Bytes the transport copied per call, counted by the transport itself (RDMA Reads and Writes,
     * the fabric's moves, are not copies).
     *
     * @param server per call on the server's side
     * @param client per call on the client's side
     */
    public record Copies(double server, double client) {
    }

    /** Reads the transport's copy counters of both sides. */
    private record CopyCounters(LongSupplier server, LongSupplier client) {

        long[] read() {
            return new long[] {server.getAsLong(), client.getAsLong()};
        }

        Copies since(long[] before, long calls) {
            long[] now = read();
            return new Copies((double) (now[0] - before[0]) / calls, (double) (now[1] - before[1]) / calls);
        }
    }

    private static final String EXPORT = "/export";
    private static final int MAX_SIZE = 1 << 20;
    private static final int WORKERS = 4;
    private static final long CALL_TIMEOUT_S = 60;

    private final Duration perRun;
    private final List<Workload> workloads;
    private final byte[] content = new byte[MAX_SIZE];
    private ObjIntConsumer<String> steps;
    private int step;

    /**
     * @param perRun    how long each workload is measured on each transport
     * @param workloads which workloads run, in this order
     */
    public RpcBench(Duration perRun, List<Workload> workloads) {
        this.perRun = perRun;
        this.workloads = List.copyOf(workloads);
        for (int i = 0; i < content.length; i++) {
            content[i] = (byte) (i * 131 + (i >>> 8));
        }
    }

    /**
     * Runs the workloads on TCP, then on the simulated RDMA device.
     *
     * @param seed the seed of the simulated fabric
     * @return the runs, TCP's first, each in the order of the workloads
     * @throws Exception if a service cannot start or a call fails outright
     */
    public List<Run> runAll(long seed) throws Exception {
        return runAll(seed, (step, index) -> { });
    }

    /** @return the steps {@link #runAll(long, ObjIntConsumer)} tells of: each workload warms up and runs, on both */
    public int steps() {
        return 4 * workloads.size();
    }

    /**
     * Runs the workloads as {@link #runAll(long)} does, telling {@code steps} of each step as it starts.
     *
     * @param seed  the seed of the simulated fabric
     * @param steps gets what each step is and its index, from 0 to {@link #steps()}
     * @return the runs, TCP's first, each in the order of the workloads
     * @throws Exception if a service cannot start or a call fails outright
     */
    public List<Run> runAll(long seed, ObjIntConsumer<String> steps) throws Exception {
        this.steps = steps;
        step = 0;
        Path export = Files.createTempDirectory("rpcrdma4j-bench");
        // oncrpc4j's TCP service shuts its worker pool down when it stops: each service gets its own.
        ExecutorService tcpWorkers = Executors.newFixedThreadPool(WORKERS);
        ExecutorService rdmaWorkers = Executors.newFixedThreadPool(WORKERS);
        try {
            Files.write(export.resolve("read"), content);
            FileHandles handles = new FileHandles(export, 16);
            List<Run> runs = new ArrayList<>(tcp(handles, tcpWorkers));
            runs.addAll(rdma(handles, rdmaWorkers, seed));
            return runs;
        } finally {
            tcpWorkers.shutdownNow();
            rdmaWorkers.shutdownNow();
            try (Stream<Path> files = Files.list(export)) {
                for (Path file : files.toList()) {
                    Files.delete(file);
                }
            }
            Files.delete(export);
        }
    }

    private List<Run> tcp(FileHandles handles, ExecutorService workers) throws Exception {
        OncRpcSvc svc = new OncRpcSvcBuilder().withTCP().withBindAddress("127.0.0.1").withPort(0).withoutAutoPublish()
                .withWorkerThreadIoStrategy().withWorkerThreadExecutionService(workers)
                .withRpcService(new OncRpcProgram(Nfs3.NFS_PROGRAM, Nfs3.NFS_V3), new Nfs3Service(handles))
                .withRpcService(new OncRpcProgram(Nfs3.MOUNT_PROGRAM, Nfs3.MOUNT_V3), new MountService(EXPORT, handles))
                .build();
        svc.start();
        try (OncRpcClient client = new OncRpcClient(InetAddress.getLoopbackAddress(), IpProtocolType.TCP,
                svc.getInetSocketAddress(IpProtocolType.TCP).getPort())) {
            return runOn("tcp", client.connect(), null);
        } finally {
            svc.stop();
        }
    }

    private List<Run> rdma(FileHandles handles, ExecutorService workers, long seed) throws Exception {
        try (SimulatedNetwork network = new SimulatedNetwork(seed)) {
            OncRpcProgram nfs = new OncRpcProgram(Nfs3.NFS_PROGRAM, Nfs3.NFS_V3);
            RdmaRpcSvc svc = new RdmaRpcSvcBuilder().withFabric(network.server()).withConfig(TransportConfig.DEFAULT)
                    .withWorkerThreadExecutionService(workers)
                    .withRpcService(nfs, new Nfs3Service(handles)).withDdpPolicy(new NfsDdpPolicy())
                    .withRpcService(new OncRpcProgram(Nfs3.MOUNT_PROGRAM, Nfs3.MOUNT_V3), new MountService(EXPORT, handles))
                    .build();
            svc.start();
            try (RdmaRpcClient client = RdmaRpcClient.connect(network.client(), network.server().localAddress(),
                    TransportConfig.DEFAULT, new NfsDdpPolicy(), Duration.ofSeconds(CALL_TIMEOUT_S))) {
                return runOn("rdma-sim", client.transport(), new CopyCounters(
                        () -> svc.statistics().bytesCopied(), () -> client.statistics().bytesCopied()));
            } finally {
                svc.stop();
            }
        }
    }

    private List<Run> runOn(String transport, RpcTransport on, CopyCounters copies) throws Exception {
        Nfs3Client client = new Nfs3Client(on, new RpcAuthTypeNone(), CALL_TIMEOUT_S, TimeUnit.SECONDS);
        byte[] root = client.mount(EXPORT);
        BenchFiles files = new BenchFiles(client.lookup(root, "read"), client.create(root, "write-" + transport));
        // Every workload warms up before any is measured: the code they share is compiled by then.
        for (Workload workload : workloads) {
            steps.accept(transport + " warm-up " + workload.label, step++);
            measure(transport, workload, on, client, files, perRun.dividedBy(3), copies);
        }
        List<Run> runs = new ArrayList<>();
        for (Workload workload : workloads) {
            steps.accept(transport + " " + workload.label, step++);
            runs.add(measure(transport, workload, on, client, files, perRun, copies));
        }
        return runs;
    }

    /** The file READs read and the one WRITEs write. */
    private record BenchFiles(byte[] read, byte[] write) {
    }

    private Run measure(String transport, Workload workload, RpcTransport on, Nfs3Client client, BenchFiles files,
                        Duration time, CopyCounters copies) throws Exception {
        return workload.depth > 1 ? measureAsync(transport, workload, on, time, copies)
                : measureSync(transport, workload, client, files, time, copies);
    }

    private Run measureSync(String transport, Workload workload, Nfs3Client client, BenchFiles files, Duration time,
                            CopyCounters copies) throws IOException {
        long[] copied = copies == null ? null : copies.read();
        byte[] data = Arrays.copyOf(content, workload.size);
        ByteBuffer expected = ByteBuffer.wrap(data);
        boolean verified = true;
        long ops = 0;
        long start = System.nanoTime();
        long end = start + time.toNanos();
        long now;
        do {
            switch (workload.procedure) {
                case Nfs3.NFSPROC3_NULL -> client.ping();
                case Nfs3.NFSPROC3_READ -> verified &= client.read(files.read, 0, workload.size).data.equals(expected);
                default -> verified &= client.write(files.write, 0, data, Nfs3.UNSTABLE).count == workload.size;
            }
            ops++;
            now = System.nanoTime();
        } while (now < end);
        double seconds = (now - start) / 1e9;
        return new Run(transport, workload.label, seconds * 1e6 / ops, ops / seconds,
                (double) ops * workload.size / seconds / 1e6, verified,
                copies == null ? null : copies.since(copied, ops));
    }

    /** NULL calls kept {@link Workload#depth} in flight by oncrpc4j's asynchronous call. */
    private Run measureAsync(String transport, Workload workload, RpcTransport on, Duration time,
                             CopyCounters copies) throws InterruptedException, IOException {
        long[] copied = copies == null ? null : copies.read();
        RpcCall nfs = new RpcCall(Nfs3.NFS_PROGRAM, Nfs3.NFS_V3, new RpcAuthTypeNone(), on);
        Semaphore window = new Semaphore(workload.depth);
        AtomicLong done = new AtomicLong();
        AtomicLong waitedNanos = new AtomicLong();
        AtomicBoolean failed = new AtomicBoolean();
        long start = System.nanoTime();
        long end = start + time.toNanos();
        while (System.nanoTime() < end && !failed.get()) {
            window.acquire();
            long sent = System.nanoTime();
            nfs.call(workload.procedure, XdrVoid.XDR_VOID, new CompletionHandler<RpcReply, RpcTransport>() {
                @Override
                public void completed(RpcReply reply, RpcTransport transport) {
                    waitedNanos.addAndGet(System.nanoTime() - sent);
                    done.incrementAndGet();
                    window.release();
                }

                @Override
                public void failed(Throwable error, RpcTransport transport) {
                    failed.set(true);
                    window.release();
                }
            });
        }
        if (!window.tryAcquire(workload.depth, CALL_TIMEOUT_S, TimeUnit.SECONDS)) {
            failed.set(true);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long ops = Math.max(1, done.get());
        return new Run(transport, workload.label, waitedNanos.get() / 1e3 / ops, done.get() / seconds, 0,
                !failed.get(), copies == null ? null : copies.since(copied, ops));
    }
}
