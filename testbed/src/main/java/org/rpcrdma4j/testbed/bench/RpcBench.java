package org.rpcrdma4j.testbed.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.CompletionHandler;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;
import java.util.function.ObjIntConsumer;
import java.util.function.Predicate;
import org.dcache.oncrpc4j.rpc.OncRpcClient;
import org.dcache.oncrpc4j.rpc.OncRpcSvc;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcReply;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.rpc.net.IpProtocolType;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.rpcrdma4j.fabric.DeviceProfile;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricOptions;
import org.rpcrdma4j.fabric.FabricProvider;
import org.rpcrdma4j.fabric.SocketAddressText;
import org.rpcrdma4j.nfs.NfsDdpPolicy;
import org.rpcrdma4j.testbed.nfs.Nfs3;
import org.rpcrdma4j.testbed.nfs.Nfs3Args;
import org.rpcrdma4j.testbed.nfs.Nfs3Client;
import org.rpcrdma4j.testbed.nfs.Nfs3Results;
import org.rpcrdma4j.testbed.nfs.Nfs3Types.Sattr3;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcClient;
import org.rpcrdma4j.transport.oncrpc.RdmaRpcSvc;
import org.rpcrdma4j.transport.oncrpc.SpinThenParkCaller;

/**
 * The same oncrpc4j program, the testbed's NFSv3 service over files in a temporary export, served
 * over oncrpc4j's TCP transport on loopback and over rpcrdma4j on a fabric (by default the simulated
 * EFA device; any fabric whose server and client can both run in this process: {@code rc-sim}, RC
 * queue pairs on the simulated RC network, {@code udp} on loopback), in one run, each with a pool of
 * {@value #WORKERS} workers: NFS NULL and the metadata calls most NFS traffic
 * is made of (GETATTR, LOOKUP, ACCESS, CREATE followed by REMOVE, READDIRPLUS of a directory of
 * {@value #DIR_ENTRIES} files) at queue depth 1 and 32, and NFS READ and WRITE (UNSTABLE) of 4 KiB,
 * 64 KiB and 1 MiB at queue depth 1, a READ of 1 MiB that finds 64 KiB before the end of the file, and READ and
 * WRITE of 1 MiB at queue depth 16.
 * Over RDMA, READ data comes back in a Write chunk and WRITE data goes in a Read chunk once over the
 * inline threshold (RFC 8267).
 *
 * <p>Each run reports the mean, median and 99th percentile of the time from a call to its reply, the
 * operations per second, and the CPU time the whole process used per operation while the workload ran
 * (client and server share the process, and on RDMA the simulated device's threads too), so that a gain
 * bought by spinning shows, split into what the transports' I/O threads used (oncrpc4j's selector
 * threads, rpcrdma4j's progress thread) and what the other threads did (callers, workers); and the
 * bytes the process's threads allocated per operation, in all and by thread. Every workload warms up on
 * both transports before any is measured, and is then measured in {@value #BATCHES} batches that take
 * turns between the transports, so that neither is measured while the JIT still compiles code both
 * run, and the load other processes put on the machine weighs on both alike. Over RDMA it also reports
 * the bytes copied per operation on the server's and the client's side: what the transport copied
 * ({@code TransportStatistics.bytesCopied} of the service and the client) and what the fabric of each
 * side copied ({@code FabricStatistics.bytesCopied}).
 *
 * <p>Blocking calls wait as oncrpc4j's {@code RpcCall.call} does (parked at once), or, given a spin time,
 * through {@link SpinThenParkCaller}, on both transports.
 *
 * <p>Programs run on a worker pool on both transports, or, with the same-thread strategy, on the thread that
 * received the call (oncrpc4j's selector thread, rpcrdma4j's progress thread) on both.
 *
 * <p>{@link #breakdown} runs blocking workloads over rpcrdma4j only, recording the transport's JFR
 * {@code CallStepEvent}s, and tells where the time of a call goes ({@link StepBreakdown}).
 *
 * <p>On each transport every workload first runs unmeasured for a third of its time to warm up; then each
 * workload runs for its time on one transport right after the other (which goes first alternates from one
 * workload to the next), so that what other processes do to the machine weighs on both alike. The fabrics
 * and the service over them are opened afresh for each measured batch: a progress thread polls a while
 * after its last work, which would take CPU from TCP's runs.
 *
 * <p>Every reply is checked: READ data against the file's, WRITE counts, GETATTR's
 * size, LOOKUP's handle, ACCESS's bits, the new file's handle, the directory's whole listing.
 */
public final class RpcBench {

    /**
     * What a run does: a procedure, its size and how many operations are in flight. An operation is one
     * call, except for {@code create-remove}, where it is a CREATE of a new name and the REMOVE of it.
     */
    public enum Workload {
        NULL_QD1("null-qd1", Nfs3.NFSPROC3_NULL, 0, 1),
        NULL_QD32("null-qd32", Nfs3.NFSPROC3_NULL, 0, 32),
        GETATTR_QD1("getattr-qd1", Nfs3.NFSPROC3_GETATTR, 0, 1),
        GETATTR_QD32("getattr-qd32", Nfs3.NFSPROC3_GETATTR, 0, 32),
        LOOKUP_QD1("lookup-qd1", Nfs3.NFSPROC3_LOOKUP, 0, 1),
        LOOKUP_QD32("lookup-qd32", Nfs3.NFSPROC3_LOOKUP, 0, 32),
        ACCESS_QD1("access-qd1", Nfs3.NFSPROC3_ACCESS, 0, 1),
        ACCESS_QD32("access-qd32", Nfs3.NFSPROC3_ACCESS, 0, 32),
        CREATE_REMOVE_QD1("create-remove-qd1", Nfs3.NFSPROC3_CREATE, 0, 1),
        CREATE_REMOVE_QD32("create-remove-qd32", Nfs3.NFSPROC3_CREATE, 0, 32),
        READDIRPLUS_QD1("readdirplus-qd1", Nfs3.NFSPROC3_READDIRPLUS, 0, 1),
        READDIRPLUS_QD32("readdirplus-qd32", Nfs3.NFSPROC3_READDIRPLUS, 0, 32),
        READ_4K("read-4k", Nfs3.NFSPROC3_READ, 4 << 10, 1),
        READ_64K("read-64k", Nfs3.NFSPROC3_READ, 64 << 10, 1),
        READ_1M("read-1m", Nfs3.NFSPROC3_READ, 1 << 20, 1),
        /** A READ of 1 MiB 64 KiB before the end of the file: 64 KiB come back, in a Write chunk of 1 MiB. */
        READ_1M_EOF("read-1m-eof", Nfs3.NFSPROC3_READ, 64 << 10, 1, 1 << 20),
        WRITE_4K("write-4k", Nfs3.NFSPROC3_WRITE, 4 << 10, 1),
        WRITE_64K("write-64k", Nfs3.NFSPROC3_WRITE, 64 << 10, 1),
        WRITE_1M("write-1m", Nfs3.NFSPROC3_WRITE, 1 << 20, 1),
        READ_1M_QD16("read-1m-qd16", Nfs3.NFSPROC3_READ, 1 << 20, 16),
        WRITE_1M_QD16("write-1m-qd16", Nfs3.NFSPROC3_WRITE, 1 << 20, 16);

        private final String label;
        private final int procedure;
        private final int size;
        private final int depth;
        /** READ only: the count asked for; more than {@link #size} reads the file's last {@code size} bytes. */
        private final int count;

        Workload(String label, int procedure, int size, int depth) {
            this(label, procedure, size, depth, size);
        }

        Workload(String label, int procedure, int size, int depth, int count) {
            this.label = label;
            this.procedure = procedure;
            this.size = size;
            this.depth = depth;
            this.count = count;
        }

        /** @return where a READ starts: 0, or {@code size} bytes before the end when it asks for more */
        private int offset() {
            return count > size ? MAX_SIZE - size : 0;
        }

        /** @return the name in the report */
        public String label() {
            return label;
        }
    }

    /**
     * One measured run.
     *
     * @param transport   "tcp" or {@link OnFabric#label()}
     * @param workload    the workload's label
     * @param latency     time from an operation's call to its reply
     * @param opsPerSec   operations completed per second
     * @param mbPerSec    data moved per second (10^6 bytes), 0 but for READ and WRITE
     * @param cpu         CPU time per operation, in microseconds
     * @param verified    whether every reply was right
     * @param copies      bytes rpcrdma4j copied per operation on each side, the transport and the fabric;
     *                    {@code null} for TCP, which does not count
     * @param allocations bytes the threads allocated per operation
     * @param server      the server's process's share of {@code cpu} and {@code allocations} when it runs in a
     *                    process of its own, {@code null} when client and server share this one (then both are
     *                    the one process's)
     */
    public record Run(String transport, String workload, Latency latency, double opsPerSec, double mbPerSec,
                      Cpu cpu, boolean verified, Copies copies, Allocations allocations, Side server) {

        /** @return the client's process's share, when the server runs in a process of its own */
        public Side client() {
            return server == null ? null : new Side(new Cpu(cpu.process() - server.cpu().process(),
                    cpu.io() - server.cpu().io(), cpu.others() - server.cpu().others()),
                    allocations.total() - server.allocated());
        }
    }

    /**
     * What one process used per operation, when client and server run in two.
     *
     * @param cpu       its CPU time per operation, in microseconds
     * @param allocated the bytes its threads allocated per operation
     */
    public record Side(Cpu cpu, double allocated) {
    }

    /**
     * CPU time per operation, in microseconds, as the JVM counts it for the process and for each thread
     * ({@link ProcessMeter}); with the server in a process of its own, both processes' added.
     *
     * @param process the whole process's, the JIT and the garbage collector included
     * @param io      the transports' I/O threads': oncrpc4j's selector threads, rpcrdma4j's progress thread
     * @param others  the other threads': the callers, the workers and the timers
     */
    public record Cpu(double process, double io, double others) {
    }

    /**
     * Bytes allocated per operation while a workload ran, as the JVM counts them for each thread
     * ({@code com.sun.management.ThreadMXBean#getThreadAllocatedBytes}); a thread that ended during the run is
     * not counted.
     *
     * @param total    by all threads
     * @param byThread by the threads of each name, digits in the name replaced by {@code #}; the server's
     *                 process's, when it has one, named {@code "server "} and their name
     */
    public record Allocations(double total, Map<String, Double> byThread) {
    }

    /**
     * Time from an operation's call to its reply, in microseconds.
     *
     * @param mean the mean
     * @param p50  the median
     * @param p99  the 99th percentile
     */
    public record Latency(double mean, double p50, double p99) {
    }

    /**
     * Bytes copied per operation, as the transport and the fabric count them (RDMA Reads and Writes,
     * the device's moves, are not copies).
     *
     * @param server per operation on the server's side
     * @param client per operation on the client's side
     */
    public record Copies(double server, double client) {
    }

    /**
     * What a batch reads before and after it, besides this process's own use: the server's side, and what
     * rpcrdma4j copied on the client's ({@code null} for TCP, which does not count).
     */
    private record Sides(ServerSide server, LongSupplier clientCopies) {
    }

    /** The server's side of a batch, in this process or in a peer process. */
    private interface ServerSide {

        /** A batch starts. */
        void begin() throws IOException, InterruptedException;

        /** @return what the server's side copied and, in a process of its own, used since {@link #begin} */
        ServerFigures end() throws IOException, InterruptedException;
    }

    /**
     * @param copied bytes rpcrdma4j copied on the server's side, the transport's and the fabric's
     * @param use    what the server's process used, {@code null} when it is this process
     */
    private record ServerFigures(long copied, ProcessMeter.Use use) {
    }

    /** The server's side of TCP in this process: oncrpc4j counts no copies. */
    private static final ServerSide TCP_HERE = new ServerSide() {
        @Override
        public void begin() {
        }

        @Override
        public ServerFigures end() {
            return new ServerFigures(0, null);
        }
    };

    /** How many batches each workload is measured in on each transport, the transports taking turns. */
    private static final int BATCHES = 4;
    private static final int MAX_SIZE = BenchExport.FILE_SIZE;
    /** Workers of each service. */
    static final int WORKERS = 4;
    private static final long CALL_TIMEOUT_S = 60;
    private static final int DIR_ENTRIES = BenchExport.DIR_ENTRIES;
    private static final String EXPORT = BenchServices.EXPORT;
    private static final Duration PEER_LIMIT = Duration.ofSeconds(CALL_TIMEOUT_S);
    /** READDIRPLUS dircount and maxcount as the Linux client asks for them with 4 KiB pages and wsize 32 KiB. */
    private static final int DIRCOUNT = 4096;
    private static final int MAXCOUNT = 32768;
    private static final int ACCESS_ALL = Nfs3.ACCESS3_READ | Nfs3.ACCESS3_LOOKUP | Nfs3.ACCESS3_MODIFY
            | Nfs3.ACCESS3_EXTEND | Nfs3.ACCESS3_DELETE | Nfs3.ACCESS3_EXECUTE;

    private final Duration perRun;
    private final List<Workload> workloads;
    private final OnFabric fabric;
    private final OnFabric reference;
    private final boolean sameThread;
    private final Nfs3Client.Caller caller;
    private final boolean twoProcesses;
    private final byte[] content = BenchExport.content();
    private final ProcessMeter meter = new ProcessMeter();
    private final AtomicLong sessions = new AtomicLong();
    private ObjIntConsumer<String> steps;
    private int step;

    /**
     * The fabric the RDMA runs are on: a server's and a client's fabric from one provider, opened afresh
     * for each batch and closed after it.
     *
     * @param provider the fabric's provider
     * @param server   what the server's fabric opens with
     * @param client   what the client's fabric opens with
     */
    public record OnFabric(FabricProvider provider, FabricOptions server, FabricOptions client) {

        /**
         * @return the name of the RDMA runs in the report: "rdma-" and the fabric's name, and its devices'
         *     profile when they lack some RDMA
         */
        public String label() {
            DeviceProfile profile = server.deviceProfile();
            return "rdma-" + provider.name() + (profile == DeviceProfile.READ_WRITE ? "" : "-" + profile.label());
        }
    }

    /**
     * @param perRun     how long each workload is measured on each transport
     * @param workloads  which workloads run, in this order
     * @param fabric     the fabric of the RDMA runs
     * @param sameThread whether programs run on the thread that received the call instead of a worker pool,
     *                   on both transports
     * @param spin       how long a blocking call's caller spins before it parks ({@link SpinThenParkCaller}),
     *                   on both transports; {@code null} for oncrpc4j's own blocking call
     * @param twoProcesses whether the services run in a second process ({@link RpcPeer}), which the bench starts
     *                   and ends; the fabric must then reach other processes, and the server's fabric opens there
     *                   with {@code fabric.server()}
     */
    public RpcBench(Duration perRun, List<Workload> workloads, OnFabric fabric, boolean sameThread, Duration spin,
                    boolean twoProcesses) {
        this(perRun, workloads, fabric, null, sameThread, spin, twoProcesses);
    }

    /**
     * A bench whose runs over {@code fabric} are measured beside runs over {@code reference} instead of TCP: the
     * same fabric with other options (its devices' profile), both in this process, taking turns as TCP would.
     *
     * @param perRun     how long each workload is measured on each
     * @param workloads  which workloads run, in this order
     * @param fabric     the fabric of the measured runs
     * @param reference  the fabric of the runs beside them, with a {@linkplain OnFabric#label() label} of its own
     * @param sameThread whether programs run on the thread that received the call instead of a worker pool
     * @param spin       how long a blocking call's caller spins before it parks, or {@code null}
     * @return the bench
     * @throws IllegalArgumentException if both fabrics have the same label
     */
    public static RpcBench beside(Duration perRun, List<Workload> workloads, OnFabric fabric, OnFabric reference,
                                  boolean sameThread, Duration spin) {
        if (fabric.label().equals(reference.label())) {
            throw new IllegalArgumentException("both runs would be " + fabric.label());
        }
        return new RpcBench(perRun, workloads, fabric, reference, sameThread, spin, false);
    }

    private RpcBench(Duration perRun, List<Workload> workloads, OnFabric fabric, OnFabric reference,
                     boolean sameThread, Duration spin, boolean twoProcesses) {
        this.perRun = perRun;
        this.workloads = List.copyOf(workloads);
        this.fabric = fabric;
        this.reference = reference;
        this.sameThread = sameThread;
        this.caller = spin == null ? RpcCall::call : new SpinThenParkCaller(spin)::call;
        this.twoProcesses = twoProcesses;
    }

    /**
     * Runs the workloads on TCP (or the reference fabric) and on the fabric, each workload on one transport right
     * after the other.
     *
     * @return the runs, TCP's (the reference's) first, each in the order of the workloads
     * @throws Exception if a service cannot start or a call fails outright
     */
    public List<Run> runAll() throws Exception {
        return runAll((step, index) -> { });
    }

    /** @return the steps {@link #runAll(ObjIntConsumer)} tells of: each workload warms up and runs, on both */
    public int steps() {
        return 4 * workloads.size();
    }

    /**
     * Runs the workloads as {@link #runAll()} does, telling {@code steps} of each step as it starts.
     *
     * @param steps gets what each step is and its index, from 0 to {@link #steps()}
     * @return the runs, TCP's first, each in the order of the workloads
     * @throws Exception if a service cannot start or a call fails outright
     */
    public List<Run> runAll(ObjIntConsumer<String> steps) throws Exception {
        this.steps = steps;
        step = 0;
        try (Servers servers = twoProcesses ? InPeer.start(this) : InProcess.create(this)) {
            // Each workload measured on one transport right after the other: the load other processes put on the
            // machine then weighs on both alike, as it cannot when all of one transport runs first.
            return servers.reference((tcp, tcpOn, tcpSides) -> alternating(servers, tcp, operations(tcp, tcpOn), tcpSides));
        }
    }

    /**
     * Runs each workload over rpcrdma4j alone, after all have warmed up, recording where the time of each
     * call goes.
     *
     * @return the breakdown of each workload, in the order of the workloads
     * @throws Exception if the service cannot start or a call fails outright
     * @throws IllegalArgumentException if a workload keeps more than one call in flight, or the server runs in a
     *                                  process of its own, where this one cannot record its steps
     */
    public Map<Workload, StepBreakdown.Breakdown> breakdown() throws Exception {
        if (twoProcesses) {
            throw new IllegalArgumentException("a breakdown records both sides' steps in one process");
        }
        for (Workload workload : workloads) {
            if (workload.depth > 1) {
                throw new IllegalArgumentException(workload.label + ": only workloads at queue depth 1 break down");
            }
        }
        steps = (what, index) -> { };
        try (Servers servers = InProcess.create(this)) {
            return servers.rdma((transport, on, sides) -> {
                Operations operations = operations(transport, on);
                for (Workload workload : workloads) {
                    measure(workload, operations, perRun.dividedBy(3), sides);
                }
                Map<Workload, StepBreakdown.Breakdown> breakdowns = new LinkedHashMap<>();
                for (Workload workload : workloads) {
                    try (StepBreakdown recording = new StepBreakdown()) {
                        measure(workload, operations, perRun, sides);
                        breakdowns.put(workload, recording.finish());
                    }
                }
                return breakdowns;
            });
        }
    }

    /** What runs against one transport. */
    @FunctionalInterface
    private interface OnTransport<T> {
        T run(String transport, RpcTransport on, Sides sides) throws Exception;
    }

    /** Where the services run, and how this process's clients reach them. */
    private interface Servers extends AutoCloseable {

        /** Runs {@code work} with a client connected to the service over TCP, or over the reference fabric. */
        <T> T reference(OnTransport<T> work) throws Exception;

        /**
         * Runs {@code work} with a client connected to the service over rpcrdma4j, on fabrics opened for it and
         * closed after it: a progress thread polls a while after its last work, which would take CPU from TCP's
         * runs.
         */
        <T> T rdma(OnTransport<T> work) throws Exception;
    }

    /** The services in this process, over a {@link BenchExport} of its own: TCP's and, for each run, rpcrdma4j's. */
    private static final class InProcess implements Servers {

        private final RpcBench bench;
        private final BenchExport export;

        private InProcess(RpcBench bench, BenchExport export) {
            this.bench = bench;
            this.export = export;
        }

        static InProcess create(RpcBench bench) throws IOException {
            return new InProcess(bench, BenchExport.create());
        }

        @Override
        public <T> T reference(OnTransport<T> work) throws Exception {
            if (bench.reference != null) {
                return on(bench.reference, work);
            }
            // oncrpc4j's TCP service shuts its worker pool down when it stops: each service gets its own.
            ExecutorService workers = Executors.newFixedThreadPool(WORKERS);
            try {
                OncRpcSvc svc = BenchServices.tcp(export.handles(), "127.0.0.1", bench.sameThread, workers);
                try (OncRpcClient client = new OncRpcClient(InetAddress.getLoopbackAddress(), IpProtocolType.TCP,
                        svc.getInetSocketAddress(IpProtocolType.TCP).getPort())) {
                    return work.run("tcp", client.connect(), new Sides(TCP_HERE, null));
                } finally {
                    svc.stop();
                }
            } finally {
                workers.shutdownNow();
            }
        }

        @Override
        public <T> T rdma(OnTransport<T> work) throws Exception {
            return on(bench.fabric, work);
        }

        private <T> T on(OnFabric fabric, OnTransport<T> work) throws Exception {
            ExecutorService workers = Executors.newFixedThreadPool(WORKERS);
            try (Fabric serverFabric = fabric.provider().open(fabric.server());
                 Fabric clientFabric = fabric.provider().open(fabric.client())) {
                RdmaRpcSvc svc = BenchServices.rdma(serverFabric, export.handles(), bench.sameThread, workers);
                LongSupplier serverCopies = () -> svc.statistics().bytesCopied()
                        + serverFabric.statistics().bytesCopied();
                ServerSide server = new ServerSide() {
                    private long copied;

                    @Override
                    public void begin() {
                        copied = serverCopies.getAsLong();
                    }

                    @Override
                    public ServerFigures end() {
                        return new ServerFigures(serverCopies.getAsLong() - copied, null);
                    }
                };
                try (RdmaRpcClient client = RdmaRpcClient.builder(clientFabric, serverFabric.localAddress())
                        .withDdpPolicy(new NfsDdpPolicy()).withConnectTimeout(Duration.ofSeconds(CALL_TIMEOUT_S))
                        .connect()) {
                    return work.run(fabric.label(), client.transport(), new Sides(server,
                            () -> client.statistics().bytesCopied() + clientFabric.statistics().bytesCopied()));
                } finally {
                    svc.stop();
                }
            } finally {
                workers.shutdownNow();
            }
        }

        @Override
        public void close() throws IOException {
            export.close();
        }
    }

    /**
     * The services in a second process, an {@link RpcPeer} this bench starts and ends, which serves TCP and
     * rpcrdma4j for the whole run and tells, batch by batch, what it used and copied. This process is the client:
     * it opens a client fabric for each rpcrdma4j run, as in one process.
     */
    private static final class InPeer implements Servers, ServerSide {

        private final RpcBench bench;
        private final PeerProcess peer;
        private final InetSocketAddress tcp;
        private final String rdma;

        private InPeer(RpcBench bench, PeerProcess peer, InetSocketAddress tcp, String rdma) {
            this.bench = bench;
            this.peer = peer;
            this.tcp = tcp;
            this.rdma = rdma;
        }

        static InPeer start(RpcBench bench) throws IOException, InterruptedException {
            List<String> args = new ArrayList<>(List.of("bench", "rpc-peer", "--fabric", bench.fabric.provider().name(),
                    "--listen", bench.fabric.server().listen(), "--seed", Long.toString(bench.fabric.server().seed()),
                    "--device-profile", bench.fabric.server().deviceProfile().label()));
            if (bench.sameThread) {
                args.add("--same-thread");
            }
            PeerProcess peer = PeerProcess.start(args);
            try {
                InetSocketAddress tcp = SocketAddressText.parse(peer.expect("tcp", PEER_LIMIT), 0);
                String rdma = peer.expect("rdma", PEER_LIMIT);
                peer.expect("ready", PEER_LIMIT);
                return new InPeer(bench, peer, tcp, rdma);
            } catch (IOException | InterruptedException | RuntimeException e) {
                peer.close();
                throw e;
            }
        }

        @Override
        public <T> T reference(OnTransport<T> work) throws Exception {
            try (OncRpcClient client = new OncRpcClient(tcp.getAddress(), IpProtocolType.TCP, tcp.getPort())) {
                return work.run("tcp", client.connect(), new Sides(this, null));
            }
        }

        @Override
        public <T> T rdma(OnTransport<T> work) throws Exception {
            OnFabric fabric = bench.fabric;
            try (Fabric clientFabric = fabric.provider().open(fabric.client());
                 RdmaRpcClient client = RdmaRpcClient.builder(clientFabric, fabric.provider().peer(rdma))
                         .withDdpPolicy(new NfsDdpPolicy()).withConnectTimeout(Duration.ofSeconds(CALL_TIMEOUT_S))
                         .connect()) {
                return work.run(fabric.label(), client.transport(), new Sides(this,
                        () -> client.statistics().bytesCopied() + clientFabric.statistics().bytesCopied()));
            }
        }

        @Override
        public void begin() throws IOException, InterruptedException {
            peer.send("start");
            peer.expect("started", PEER_LIMIT);
        }

        @Override
        public ServerFigures end() throws IOException, InterruptedException {
            peer.send("stop");
            List<String> used = new ArrayList<>();
            String line;
            while (!(line = peer.next(PEER_LIMIT)).startsWith("copied ")) {
                used.add(line);
            }
            long copied;
            try {
                copied = Long.parseLong(line.substring("copied ".length()));
            } catch (NumberFormatException e) {
                throw new IOException("the peer process said '" + line + "'", e);
            }
            peer.expect("end", PEER_LIMIT);
            return new ServerFigures(copied, ProcessMeter.parse(used));
        }

        @Override
        public void close() {
            peer.close();
        }
    }

    /** The operations of every workload over one transport, on files looked up and created through it. */
    private Operations operations(String transport, RpcTransport on) throws IOException {
        Nfs3Client client = new Nfs3Client(on, new RpcAuthTypeNone(), CALL_TIMEOUT_S, TimeUnit.SECONDS, caller);
        byte[] root = client.mount(EXPORT);
        // A transport may be connected more than once in a run: each session's files have names of their own.
        String session = transport + "-" + sessions.incrementAndGet();
        BenchFiles files = new BenchFiles(root, client.lookup(root, "read"), client.create(root, "write-" + session),
                client.lookup(root, "dir"), "new-" + session + "-", new AtomicLong());
        return new Operations(new RpcCall(Nfs3.NFS_PROGRAM, Nfs3.NFS_V3, new RpcAuthTypeNone(), on), client, files);
    }

    /**
     * Runs every workload on TCP and over the fabric in {@value #BATCHES} batches each, the transports taking
     * turns, which goes first alternating from one batch to the next. The fabric is open only while its batch
     * runs: its progress thread polls while a call is in flight, which would take CPU from TCP's runs.
     *
     * @return the runs, TCP's first, each in the order of the workloads
     */
    private List<Run> alternating(Servers servers, String tcp, Operations tcpOperations, Sides tcpSides)
            throws Exception {
        // Every workload warms up before any is measured: the code they share is compiled by then.
        for (Workload workload : workloads) {
            steps.accept(tcp + " warm-up " + workload.label, step++);
            measure(workload, tcpOperations, perRun.dividedBy(3), tcpSides);
        }
        servers.rdma((rdma, on, sides) -> {
            Operations operations = operations(rdma, on);
            for (Workload workload : workloads) {
                steps.accept(rdma + " warm-up " + workload.label, step++);
                measure(workload, operations, perRun.dividedBy(3), sides);
            }
            return null;
        });
        List<Run> tcpRuns = new ArrayList<>();
        List<Run> rdmaRuns = new ArrayList<>();
        Duration batch = perRun.dividedBy(BATCHES);
        for (Workload workload : workloads) {
            Callable<Tally> overTcp = () -> measure(workload, tcpOperations, batch, tcpSides);
            Callable<Tally> overRdma = () -> servers.rdma(
                    (rdma, on, sides) -> measure(workload, operations(rdma, on), batch, sides));
            Tally tcpTally = new Tally();
            Tally rdmaTally = new Tally();
            steps.accept(tcp + " and " + fabric.label() + " " + workload.label, step++);
            for (int i = 0; i < BATCHES; i++) {
                if (i % 2 == 0) {
                    tcpTally.add(overTcp.call());
                    rdmaTally.add(overRdma.call());
                } else {
                    rdmaTally.add(overRdma.call());
                    tcpTally.add(overTcp.call());
                }
            }
            step++;
            tcpRuns.add(tcpTally.run(tcp, workload));
            rdmaRuns.add(rdmaTally.run(fabric.label(), workload));
        }
        tcpRuns.addAll(rdmaRuns);
        return tcpRuns;
    }

    /** The export's root, the file READs read, the one WRITEs write, the directory READDIRPLUS lists, new names. */
    private record BenchFiles(byte[] root, byte[] read, byte[] write, byte[] dir, String prefix, AtomicLong created) {

        String newName() {
            return prefix + created.incrementAndGet();
        }
    }

    /** What the run counted, whatever the depth. */
    private record Counted(long ops, long nanos, long[] latencies, boolean verified) {
    }

    /** Measures one batch of a workload: this process's use, and the server's side's. */
    private Tally measure(Workload workload, Operations operations, Duration time, Sides sides) throws Exception {
        long clientCopied = sides.clientCopies() == null ? 0 : sides.clientCopies().getAsLong();
        sides.server().begin();
        ProcessMeter.Snapshot here = meter.snapshot();
        Counted counted = workload.depth > 1 ? operations.async(workload, time) : operations.sync(workload, time);
        ProcessMeter.Use client = here.used();
        ServerFigures server = sides.server().end();
        Tally tally = new Tally();
        tally.ops = counted.ops;
        tally.nanos = counted.nanos;
        tally.latencies.add(counted.latencies);
        tally.verified = counted.verified;
        tally.add(client, "");
        if (server.use() != null) {
            tally.server = new Tally();
            tally.server.add(server.use(), "server ");
            tally.add(server.use(), "server ");
        }
        if (sides.clientCopies() != null) {
            tally.copied = new long[] {server.copied(), sides.clientCopies().getAsLong() - clientCopied};
        }
        return tally;
    }

    /** What the batches of one workload on one transport counted together. */
    private static final class Tally {
        long ops;
        long nanos;
        final List<long[]> latencies = new ArrayList<>();
        boolean verified = true;
        long processCpuNanos;
        long ioCpuNanos;
        long otherCpuNanos;
        long[] copied;
        final Map<String, Long> allocated = new TreeMap<>();
        /** The server's process's share, when it has one. */
        Tally server;

        /** Counts what one process used, its threads' names after {@code prefix}. */
        void add(ProcessMeter.Use use, String prefix) {
            processCpuNanos += use.processCpuNanos();
            ioCpuNanos += use.ioCpuNanos();
            otherCpuNanos += use.otherCpuNanos();
            use.allocated().forEach((name, bytes) -> allocated.merge(prefix + name, bytes, Long::sum));
        }

        void add(Tally batch) {
            ops += batch.ops;
            nanos += batch.nanos;
            latencies.addAll(batch.latencies);
            verified &= batch.verified;
            processCpuNanos += batch.processCpuNanos;
            ioCpuNanos += batch.ioCpuNanos;
            otherCpuNanos += batch.otherCpuNanos;
            if (batch.copied != null) {
                copied = copied == null ? batch.copied.clone()
                        : new long[] {copied[0] + batch.copied[0], copied[1] + batch.copied[1]};
            }
            batch.allocated.forEach((name, bytes) -> allocated.merge(name, bytes, Long::sum));
            if (batch.server != null) {
                if (server == null) {
                    server = new Tally();
                }
                server.add(batch.server);
            }
        }

        Run run(String transport, Workload workload) {
            long perOp = Math.max(1, ops);
            long[] all = latencies.stream().flatMapToLong(Arrays::stream).sorted().toArray();
            double mean = Arrays.stream(all).average().orElse(0) / 1e3;
            Latency latency = new Latency(mean, percentile(all, 50) / 1e3, percentile(all, 99) / 1e3);
            double seconds = nanos / 1e9;
            Map<String, Double> byThread = new TreeMap<>();
            allocated.forEach((name, bytes) -> byThread.put(name, (double) bytes / perOp));
            double total = byThread.values().stream().mapToDouble(Double::doubleValue).sum();
            Copies copies = copied == null ? null
                    : new Copies((double) copied[0] / perOp, (double) copied[1] / perOp);
            double mbPerSec = (double) ops * workload.size / seconds / 1e6;
            Side serverSide = server == null ? null : new Side(server.cpu(perOp),
                    server.allocated.values().stream().mapToLong(Long::longValue).sum() / (double) perOp);
            return new Run(transport, workload.label, latency, ops / seconds, mbPerSec, cpu(perOp), verified, copies,
                    new Allocations(total, byThread), serverSide);
        }

        private Cpu cpu(long perOp) {
            return new Cpu(processCpuNanos / 1e3 / perOp, ioCpuNanos / 1e3 / perOp, otherCpuNanos / 1e3 / perOp);
        }
    }

    /** The nearest-rank percentile of sorted values. */
    private static long percentile(long[] sorted, int percent) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(percent / 100.0 * sorted.length);
        return sorted[Math.max(0, rank - 1)];
    }

    /** Each workload's operation, made and checked, one at a time or many in flight. */
    private final class Operations {

        private final RpcCall nfs;
        private final Nfs3Client client;
        private final BenchFiles files;

        Operations(RpcCall nfs, Nfs3Client client, BenchFiles files) {
            this.nfs = nfs;
            this.client = client;
            this.files = files;
        }

        /** One operation at a time through the blocking calls, as an application thread makes them. */
        Counted sync(Workload workload, Duration time) throws IOException {
            byte[] data = Arrays.copyOf(content, workload.size);
            ByteBuffer expected = ByteBuffer.wrap(content, workload.offset(), workload.size);
            Latencies latencies = new Latencies();
            boolean verified = true;
            long start = System.nanoTime();
            long end = start + time.toNanos();
            long now = start;
            do {
                long sent = now;
                BenchCallEvent event = new BenchCallEvent();
                event.begin();
                verified &= switch (workload.procedure) {
                    case Nfs3.NFSPROC3_NULL -> {
                        client.ping();
                        yield true;
                    }
                    case Nfs3.NFSPROC3_GETATTR -> client.getattr(files.read).size == MAX_SIZE;
                    case Nfs3.NFSPROC3_LOOKUP -> Arrays.equals(client.lookup(files.root, "read"), files.read);
                    case Nfs3.NFSPROC3_ACCESS -> client.access(files.read, ACCESS_ALL) != 0;
                    case Nfs3.NFSPROC3_CREATE -> {
                        String name = files.newName();
                        byte[] fh = client.create(files.root, name);
                        client.remove(files.root, name);
                        yield fh.length > 0;
                    }
                    case Nfs3.NFSPROC3_READDIRPLUS -> listsTheDirectory(
                            client.readdir(files.dir, true, 0, 0, DIRCOUNT, MAXCOUNT));
                    case Nfs3.NFSPROC3_READ -> client.read(files.read, workload.offset(), workload.count).data
                            .equals(expected);
                    default -> client.write(files.write, 0, data, Nfs3.UNSTABLE).count == workload.size;
                };
                event.commit();
                now = System.nanoTime();
                latencies.add(now - sent);
            } while (now < end);
            return new Counted(latencies.size(), now - start, latencies.values(), verified);
        }

        /** {@link Workload#depth} operations kept in flight through oncrpc4j's asynchronous call. */
        Counted async(Workload workload, Duration time) throws InterruptedException, IOException {
            Semaphore window = new Semaphore(workload.depth);
            Latencies latencies = new Latencies();
            AtomicBoolean wrong = new AtomicBoolean();
            AtomicBoolean failed = new AtomicBoolean();
            long start = System.nanoTime();
            long end = start + time.toNanos();
            while (System.nanoTime() < end && !failed.get()) {
                window.acquire();
                long sent = System.nanoTime();
                start(workload, (right, error) -> {
                    if (error != null) {
                        failed.set(true);
                    } else {
                        latencies.add(System.nanoTime() - sent);
                        wrong.compareAndSet(false, !right);
                    }
                    window.release();
                });
            }
            if (!window.tryAcquire(workload.depth, CALL_TIMEOUT_S, TimeUnit.SECONDS)) {
                failed.set(true);
            }
            long nanos = System.nanoTime() - start;
            return new Counted(latencies.size(), nanos, latencies.values(), !failed.get() && !wrong.get());
        }

        /** Starts one operation; {@code done} gets whether its replies were right, or why it failed. */
        private void start(Workload workload, BiConsumer<Boolean, Throwable> done) throws IOException {
            switch (workload.procedure) {
                case Nfs3.NFSPROC3_NULL -> call(Nfs3.NFSPROC3_NULL, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID, r -> true, done);
                case Nfs3.NFSPROC3_GETATTR -> call(Nfs3.NFSPROC3_GETATTR, new Nfs3Args.Fh(files.read),
                        new Nfs3Results.Getattr(), r -> r.ok() && r.attr.size == MAX_SIZE, done);
                case Nfs3.NFSPROC3_LOOKUP -> call(Nfs3.NFSPROC3_LOOKUP, new Nfs3Args.DirOp(files.root, utf8("read")),
                        new Nfs3Results.Lookup(), r -> r.ok() && Arrays.equals(r.fh, files.read), done);
                case Nfs3.NFSPROC3_ACCESS -> call(Nfs3.NFSPROC3_ACCESS, new Nfs3Args.Access(files.read, ACCESS_ALL),
                        new Nfs3Results.Access(), r -> r.ok() && r.access != 0, done);
                case Nfs3.NFSPROC3_CREATE -> {
                    byte[] name = utf8(files.newName());
                    call(Nfs3.NFSPROC3_CREATE,
                            new Nfs3Args.Create(files.root, name, Nfs3.GUARDED, Sattr3.ofMode(0644), 0),
                            new Nfs3Results.Create(), Nfs3Results.Result::ok, (created, error) -> {
                                if (error != null || !created) {
                                    done.accept(created, error);
                                    return;
                                }
                                try {
                                    // On the reply thread, which never waits: at most depth calls are in flight.
                                    call(Nfs3.NFSPROC3_REMOVE, new Nfs3Args.DirOp(files.root, name),
                                            new Nfs3Results.Wcc(), Nfs3Results.Result::ok, done);
                                } catch (IOException e) {
                                    done.accept(false, e);
                                }
                            });
                }
                case Nfs3.NFSPROC3_READDIRPLUS -> call(Nfs3.NFSPROC3_READDIRPLUS,
                        new Nfs3Args.Readdir(true, files.dir, 0, 0, DIRCOUNT, MAXCOUNT), new Nfs3Results.Readdir(true),
                        RpcBench::listsTheDirectory, done);
                case Nfs3.NFSPROC3_READ -> {
                    ByteBuffer expected = ByteBuffer.wrap(content, workload.offset(), workload.size);
                    call(Nfs3.NFSPROC3_READ, new Nfs3Args.FhOffsetCount(files.read, workload.offset(), workload.count),
                            new Nfs3Results.Read(), r -> r.ok() && r.data.equals(expected), done);
                }
                // The file's bytes, read-only and never changed, are every WRITE's data: a buffer of its own each.
                default -> call(Nfs3.NFSPROC3_WRITE, new Nfs3Args.Write(files.write, 0, Nfs3.UNSTABLE,
                        ByteBuffer.wrap(content, 0, workload.size)), new Nfs3Results.Write(false),
                        r -> r.ok() && r.count == workload.size, done);
            }
        }

        private <R extends XdrAble> void call(int procedure, XdrAble args, R result, Predicate<R> right,
                                              BiConsumer<Boolean, Throwable> done) throws IOException {
            nfs.call(procedure, args, new CompletionHandler<RpcReply, RpcTransport>() {
                @Override
                public void completed(RpcReply reply, RpcTransport transport) {
                    try {
                        reply.getReplyResult(result);
                    } catch (IOException | RuntimeException e) {
                        done.accept(false, e);
                        return;
                    }
                    done.accept(right.test(result), null);
                }

                @Override
                public void failed(Throwable error, RpcTransport transport) {
                    done.accept(false, error);
                }
            });
        }
    }

    /** Whether one READDIRPLUS reply lists the whole directory: every file, with attributes and handle. */
    private static boolean listsTheDirectory(Nfs3Results.Readdir listing) {
        if (!listing.ok() || !listing.eof) {
            return false;
        }
        long files = listing.entries.stream()
                .filter(e -> !e.name().equals(".") && !e.name().equals(".."))
                .filter(e -> e.attr() != null && e.fh() != null)
                .count();
        return files == DIR_ENTRIES;
    }

    private static byte[] utf8(String name) {
        return name.getBytes(StandardCharsets.UTF_8);
    }

    /** Each operation's time from call to reply, in nanoseconds, added from any thread. */
    private static final class Latencies {

        private long[] values = new long[1 << 16];
        private int size;

        synchronized void add(long nanos) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = nanos;
        }

        synchronized int size() {
            return size;
        }

        synchronized long[] values() {
            return Arrays.copyOf(values, size);
        }
    }
}
