package org.rpcrdma4j.fabric.rc;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.rpcrdma4j.fabric.ConnectionListener;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.fabric.FabricConnection;
import org.rpcrdma4j.fabric.FabricStatus;
import org.rpcrdma4j.fabric.MemoryAccess;
import org.rpcrdma4j.fabric.MessageBuffers;
import org.rpcrdma4j.fabric.ProgressAgent;
import org.rpcrdma4j.fabric.ProgressRunner;
import org.rpcrdma4j.fabric.ProgressTurn;
import org.rpcrdma4j.fabric.Registration;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.verbs.CmEventType;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.xdr.ConnectPrivateData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection-oriented {@link Fabric} on verbs: one RC queue pair per connection, set up by
 * RDMA-CM with the RFC 8797 private data in the REQ and the REP, Sends for messages and RDMA Read and
 * Write for chunks. What Linux's xprtrdma and svcrdma speak.
 *
 * <h2>The progress thread</h2>
 * One thread, a {@link ProgressRunner}, polls the CM event channel and the shared completion queue and
 * runs every listener; when it has found nothing for {@link #IDLE_SPIN_NANOS} it arms the completion
 * queue and sleeps in {@code poll(2)} on the CM, the completion and the device's asynchronous-event
 * descriptors, with a timeout, until an event or {@link #execute} wakes it. So an idle fabric uses no
 * CPU and a busy one makes no system call to wait.
 *
 * <h2>The turn</h2>
 * Ids, queue pairs and registrations are touched only by the thread that holds the fabric's
 * {@link ProgressTurn}: the progress thread while it polls and runs commands, never while it sleeps.
 * A command handed to {@link #execute} runs at once on the thread that hands it over when that thread
 * gets the turn, after the commands handed over before: a caller posts its call's Send, and a worker
 * its reply's, without waking the progress thread, which the completion queue wakes when there is
 * something to complete (as the Linux client posts from the RPC task's thread and completes in the
 * completion queue's context). No chunk copy is made in the turn ({@link RcMemory}): a thread that
 * ran commands makes the copies they asked for once it has let go of the turn, and the progress
 * thread hands its own to the fabric's {@link ChunkCopier}, so that the other connections' completions
 * go on while they are made; with one connection there is no other to go on, and the progress thread
 * makes them itself once it has let go of the turn, sparing two thread hand-overs per copy.
 *
 * <h2>Routing</h2>
 * The device's reports go to a {@link CmRouter}: CM events and completions to their connection, by
 * id and by queue pair number; connection requests to the acceptor.
 *
 * <h2>Memory</h2>
 * The transport's message buffers come from the fabric ({@link #messageBuffers()},
 * {@link RcMessageBuffers}): registered once, so receives land in them and Sends leave from them.
 * A message in a heap buffer goes through registered slots of its connection ({@link BounceSlots}),
 * registered once when the connection's queue pair is made, copied to and from it. Chunk memory no
 * peer may touch (a responder's RDMA Read targets and Write sources) is copied through blocks of a
 * bounded pool of registered memory ({@link ChunkPool}), so serving makes no {@code ibv_reg_mr} per
 * call; a chunk over a block's 1 MiB takes several blocks, which RDMA Reads and Writes name with a
 * scatter/gather list ({@link RcConnection}), and one the pool has no room for is registered on its
 * own ({@link #register}). Memory a peer reads or writes (a requester's chunks,
 * {@link #register(FabricConnection, ByteBuffer, Set)}) is copied through blocks of a second pool
 * whose slabs no peer reaches by their own key: the peer reaches a block through a type 2 memory
 * window of the call's connection ({@link ChunkWindows}), bound per call with a fresh key and
 * invalidated when the call ends, by the peer's Send with Invalidate or a local invalidate; so a
 * client makes no {@code ibv_reg_mr} per call either. At {@link #deregister} its bytes are copied
 * out at once (everything the peer wrote before its reply is there: RC orders the reply after its
 * RDMA Writes), and the block and window go back once the key reaches nothing: at once after a Send
 * with Invalidate, when the local invalidate completes, or when an ending connection's queue pair
 * is destroyed. Without windows, such memory is registered per call, a heap buffer as a native
 * copy, a direct buffer where it is, and deregistered before its bytes are copied back. A copy is
 * filled at {@link #register} unless the memory is only written, and copied back at
 * {@link #deregister} as far as the caller will read it ({@link LocalRegion}). The
 * strategy is {@link RcMemory}'s, which counts every copy ({@link RcCounter#BYTES_COPIED}).
 *
 * <h2>What ends a connection</h2>
 * DISCONNECTED, TIMEWAIT_EXIT, REJECTED, UNREACHABLE, an address or route error, DEVICE_REMOVAL, a
 * failed (not flushed) completion, a queue pair the device reports broken, and {@code close()}; each
 * ends that connection only (statuses: {@link RcStatus}).
 *
 * <h2>Statistics</h2>
 * {@link #statistics()}: connections, registrations, the {@link RcCounter}s, the {@link RcGauge}s and
 * the RDMA-CM events received by kind ({@link RcFabricStatistics}). Each figure is kept where it changes,
 * in a volatile field that only the turn's holder writes, so any thread reads them at once, even
 * while the progress thread is stuck in the device (a gauge may be a moment old then).
 */
public final class RcFabric implements Fabric, AutoCloseable {

    /** The port NFS servers listen on for RDMA (IANA's "nfsrdma"), as Linux's nfsd does. */
    public static final int NFS_RDMA_PORT = 20049;
    /**
     * How long the progress thread polls on after its last work before it arms the completion queue
     * and sleeps: about a short call's turn on a worker, as the EFA fabric's spin, so that a reply
     * handed over soon finds it awake.
     */
    static final long IDLE_SPIN_NANOS = 50_000;
    /** The longest sleep; the thread also wakes on events and {@link #execute}. */
    static final int SLEEP_MILLIS = 1000;
    private static final int BACKLOG = 128;
    private static final Logger LOG = LoggerFactory.getLogger(RcFabric.class);

    /**
     * Sizes of each connection and how its queue pair and RDMA-CM give up.
     *
     * <p>The receive queue of a connection is as deep as the receives the transport gives
     * {@link #connect} or {@code accept} (its credits, backchannel receives and a spare); the device's
     * {@code max_qp_wr} bounds both depths.
     *
     * <p>The retry counts travel in the CM messages: the REQ's transport retry count serves both queue
     * pairs of a connection, and each side's RNR retry count is the one the other side sent in its REQ
     * or REP. The defaults are Linux's: its client ({@code rpcrdma_ep_create} in
     * net/sunrpc/xprtrdma/verbs.c) asks for 6 transport retries and no RNR retry, and its server
     * ({@code svc_rdma_accept}) answers with no RNR retry either. The credits of RPC-over-RDMA are its
     * flow control, so a Send that finds no receive posted means the receiver broke them: with no RNR
     * retry that Send fails at once (RNR_RETRY_EXC_ERR) and the connection ends, where 7 would retry
     * it without end and hold every work request queued behind it.
     *
     * @param sendDepth            Sends, RDMA Reads and Writes outstanding at once on a connection
     * @param slotSize             the largest message sent or received: at least the transport's inline sizes
     * @param chunkPoolBytes       the most memory registered for the {@link ChunkPool}, 0 for none
     * @param retryCount           transport retries (a lost packet, a missing ACK) before a work request
     *                             fails with RETRY_EXC_ERR, 0 to 7, sent in the REQs of this side (rdma_rxe
     *                             retries without end at 7)
     * @param rnrRetryCount        retries of the peer's Send that finds no receive of ours posted before
     *                             it fails with RNR_RETRY_EXC_ERR, 0 to 7 (7: without end)
     * @param resolveTimeoutMillis how long {@code rdma_resolve_addr} and {@code rdma_resolve_route} may
     *                             take each, in milliseconds
     */
    public record Config(int sendDepth, int slotSize, long chunkPoolBytes, int retryCount, int rnrRetryCount,
                         int resolveTimeoutMillis) {

        /** The default bound of the chunk pool: 64 MiB. */
        public static final long DEFAULT_CHUNK_POOL_BYTES = 64L << 20;
        /** Linux xprtrdma's transport retries ({@code rpcrdma_ep_create}). */
        public static final int DEFAULT_RETRY_COUNT = 6;
        /** Linux xprtrdma's and svcrdma's RNR retries: none, so that a broken credit shows at once. */
        public static final int DEFAULT_RNR_RETRY_COUNT = 0;
        /** Linux xprtrdma's address and route resolution timeout ({@code RDMA_RESOLVE_TIMEOUT}, 5 s). */
        public static final int DEFAULT_RESOLVE_TIMEOUT_MILLIS = 5000;

        /** Room for the transport's defaults (128 credits, 4 KiB inline messages, the backchannel). */
        public static final Config DEFAULT = new Config(256, TransportConfig.DEFAULT_INLINE_SIZE,
                DEFAULT_CHUNK_POOL_BYTES);

        /** Checks the sizes and counts. */
        public Config {
            if (sendDepth < 1 || slotSize < 1 || chunkPoolBytes < 0) {
                throw new IllegalArgumentException("sizes must be positive: " + sendDepth + " sends, " + slotSize
                        + "-byte slots, a chunk pool of " + chunkPoolBytes + " bytes");
            }
            if (retryCount < 0 || retryCount > 7 || rnrRetryCount < 0 || rnrRetryCount > 7) {
                throw new IllegalArgumentException("retry counts are 0 to 7: " + retryCount + " retries, "
                        + rnrRetryCount + " RNR retries");
            }
            if (resolveTimeoutMillis < 1) {
                throw new IllegalArgumentException("resolve timeout " + resolveTimeoutMillis + " ms < 1");
            }
        }

        /**
         * Sizes with Linux's retry counts and resolution timeout.
         *
         * @param sendDepth      Sends, RDMA Reads and Writes outstanding at once on a connection
         * @param slotSize       the largest message sent or received
         * @param chunkPoolBytes the most memory registered for the {@link ChunkPool}, 0 for none
         */
        public Config(int sendDepth, int slotSize, long chunkPoolBytes) {
            this(sendDepth, slotSize, chunkPoolBytes, DEFAULT_RETRY_COUNT, DEFAULT_RNR_RETRY_COUNT,
                    DEFAULT_RESOLVE_TIMEOUT_MILLIS);
        }
    }

    private final RcDevice device;
    private final Config config;
    private final FabricAddress localAddress;
    private final InetSocketAddress bind;
    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();
    private final ProgressTurn turn = new ProgressTurn();
    private final RcMemory memory;
    private final RcMessageBuffers messages;
    private final CmRouter router;
    private final ProgressRunner runner;
    private final Reaper reaper;
    private final ChunkCopier copier;
    /**
     * Whether the turn's holder makes the chunk copies its work asks for: a thread in {@link #execute}, or
     * the progress thread of a fabric with one connection.
     */
    private boolean copiesOwn;
    /** The chunk copies the turn's holder makes once it lets go of the turn. */
    private final List<ChunkCopier.Copy> ownCopies = new ArrayList<>();
    /** Batches of copies taken out of the turn by threads in {@link #execute} whose end has not run yet. */
    private final AtomicInteger copiesOutside = new AtomicInteger();
    private volatile boolean running = true;
    private volatile boolean sleeping;
    private long listenId = -1;
    // What statistics() reads on any thread, written by the turn's holder only: see "Statistics" above.
    private volatile long flushedCompletions;
    private volatile long failedCompletions;
    private volatile long postedReceives;
    private volatile long postedSends;
    private volatile long memoryWindows;

    /**
     * Opens a fabric on the verbs device that has {@code bind}'s address and listens there when asked
     * to ({@link #listen}); {@code testbed serve --fabric verbs} uses this.
     *
     * @param bind an address of an RDMA device (Soft-RoCE: its netdev's address) and the port to
     *             listen on, {@link #NFS_RDMA_PORT} for NFS
     * @return the fabric, its progress thread running
     * @throws VerbsException if librdmacm or libibverbs is missing or the device cannot be opened
     */
    public static RcFabric open(InetSocketAddress bind) throws VerbsException {
        return open(bind, Config.DEFAULT);
    }

    /**
     * @param bind   as for {@link #open(InetSocketAddress)}
     * @param config the sizes of each connection
     * @return the fabric, its progress thread running
     * @throws VerbsException if librdmacm or libibverbs is missing or the device cannot be opened
     */
    public static RcFabric open(InetSocketAddress bind, Config config) throws VerbsException {
        return new RcFabric(VerbsRcDevice.open(), bind, config);
    }

    RcFabric(RcDevice device, InetSocketAddress bind, Config config) {
        this.device = Objects.requireNonNull(device, "device");
        this.config = Objects.requireNonNull(config, "config");
        this.bind = Objects.requireNonNull(bind, "bind");
        this.localAddress = addressOf(bind);
        this.memory = new RcMemory(device, config.chunkPoolBytes(), this::copyOutsideTurn);
        this.messages = new RcMessageBuffers(device, config.slotSize());
        this.router = new CmRouter(this, device, config);
        this.reaper = new Reaper("rc-reaper " + bind);
        this.copier = new ChunkCopier("rc-copier " + bind, this::later);
        this.runner = ProgressRunner.start("rc-fabric " + bind, new Progress(), work -> Thread.onSpinWait(),
                IDLE_SPIN_NANOS, new Sleep());
    }

    /**
     * @param address an IP address and port
     * @return the fabric address of it: the IP address (IPv4 as the IPv4-mapped IPv6 address, as a
     *     RoCEv2 GID of an IPv4 interface is) as identity, the port as number, the address's bytes as raw
     */
    public static FabricAddress addressOf(InetSocketAddress address) {
        byte[] ip = address.getAddress().getAddress();
        byte[] identity = new byte[FabricAddress.IDENTITY_LENGTH];
        if (ip.length == 4) {
            identity[10] = (byte) 0xff;
            identity[11] = (byte) 0xff;
            System.arraycopy(ip, 0, identity, 12, 4);
        } else {
            System.arraycopy(ip, 0, identity, 0, FabricAddress.IDENTITY_LENGTH);
        }
        return new FabricAddress(ip, identity, address.getPort());
    }

    /**
     * @param address a fabric address of this fabric's kind
     * @return the socket address RDMA-CM connects to
     */
    public static InetSocketAddress socketAddressOf(FabricAddress address) {
        try {
            return new InetSocketAddress(InetAddress.getByAddress(address.raw()), address.number());
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an RC fabric address: " + address, e);
        }
    }

    /** @return the sizes of each connection */
    Config config() {
        return config;
    }

    @Override
    public FabricAddress localAddress() {
        return localAddress;
    }

    @Override
    public void execute(Runnable command) {
        if (!running) {
            throw new IllegalStateException("the fabric is closed");
        }
        Objects.requireNonNull(command, "command");
        Runnable next = command;
        while (next != null) {
            if (!turn.tryTake()) {
                later(next);
                return;
            }
            List<ChunkCopier.Copy> copies;
            try {
                copiesOwn = true;
                runCommands();
                runCommand(next);
            } finally {
                copiesOwn = false;
                copies = takeOwnCopies();
                turn.release();
            }
            next = copies == null ? null : made(copies);
        }
    }

    /**
     * Has a chunk copy made outside the turn, then what follows it run in the turn: by this thread once
     * it lets go of the turn when it runs commands of its own ({@link #execute}) or is the progress
     * thread of a fabric with one connection, else by the copier. In the turn.
     */
    private void copyOutsideTurn(ChunkCopier.Copy copy) {
        if (copiesOwn) {
            ownCopies.add(copy);
        } else {
            copier.submit(copy);
        }
    }

    /** @return the copies the turn's holder is to make, taken out of the turn; null for none */
    private List<ChunkCopier.Copy> takeOwnCopies() {
        if (ownCopies.isEmpty()) {
            return null;
        }
        List<ChunkCopier.Copy> copies = List.copyOf(ownCopies);
        ownCopies.clear();
        copiesOutside.incrementAndGet();
        return copies;
    }

    /** Makes copies outside the turn; returns the command that ends them in the turn. */
    private Runnable made(List<ChunkCopier.Copy> copies) {
        copies.forEach(ChunkCopier.Copy::make);
        return () -> {
            copiesOutside.decrementAndGet();
            copies.forEach(ChunkCopier.Copy::done);
        };
    }

    /**
     * Runs a command in the turn after what is being done now, waking the progress thread if it
     * sleeps: a command run by another thread may leave it one (a post that failed).
     */
    void later(Runnable command) {
        commands.add(command);
        if (sleeping) {
            device.wakeup();
        }
    }

    @Override
    public boolean onProgressThread() {
        return turn.isHeldByCurrentThread();
    }

    @Override
    public void listen(Consumer<ConnectRequest> newAcceptor) {
        if (router.accepting()) {
            throw new IllegalStateException("this fabric has an acceptor already");
        }
        if (listenId < 0) {
            try {
                listenId = device.listen(bind, BACKLOG);
            } catch (VerbsException e) {
                throw new IllegalStateException("cannot listen on " + bind + ": " + e.getMessage(), e);
            }
        }
        router.accepting(Objects.requireNonNull(newAcceptor, "acceptor"));
    }

    /** Refuses requests from now on (they are rejected); the listening id stays, so the port stays ours. */
    @Override
    public void stopListening() {
        router.accepting(null);
    }

    @Override
    public FabricConnection connect(FabricAddress peer, ConnectPrivateData privateData, List<ByteBuffer> receives,
                                    ConnectionListener listener) {
        long id;
        try {
            id = device.createId();
        } catch (VerbsException e) {
            throw new IllegalStateException("rdma_create_id failed: " + e.getMessage(), e);
        }
        RcConnection connection = new RcConnection(this, device, id, peer, listener, true);
        router.requesting(connection, privateData);
        receives.forEach(connection::postReceive);
        try {
            device.resolveAddress(id, socketAddressOf(peer), config.resolveTimeoutMillis());
        } catch (VerbsException e) {
            connection.fail(FabricStatus.PEER_UNREACHABLE, "rdma_resolve_addr failed: " + e.getMessage());
        }
        return connection;
    }

    /**
     * Registers memory a peer reaches over one connection. On a requester's connection whose device
     * has type 2 memory windows, memory with a remote right is reached through a window of the
     * connection ({@link RcMemory#registerWindowed}); anything else is {@link #register(ByteBuffer, Set)}.
     */
    @Override
    public Registration register(FabricConnection on, ByteBuffer bytes, Set<MemoryAccess> access) {
        boolean remote = access.contains(MemoryAccess.REMOTE_READ) || access.contains(MemoryAccess.REMOTE_WRITE);
        RcConnection connection = on instanceof RcConnection ours ? ours : null;
        if (connection != null && connection.windowed() && remote && bytes.hasRemaining()) {
            return memory.registerWindowed(connection, bytes, access);
        }
        return memory.register(bytes, access, connection);
    }

    /**
     * Registers chunk memory as {@link RcMemory#register} says: pool blocks where it can, an
     * {@code ibv_reg_mr} of its own where it must. The caller's bytes are copied in outside the turn,
     * before an RDMA that names the registration is posted; memory a peer reaches registered for no
     * connection is copied in at once. What the device or a peer writes there is in the caller's buffer
     * once {@link #deregister} returns. Null when {@code ibv_reg_mr} fails or the memory is registered
     * already.
     */
    @Override
    public Registration register(ByteBuffer bytes, Set<MemoryAccess> access) {
        return memory.register(bytes, access, null);
    }

    /** Copies what was written back at once, in the turn: see {@link #deregister(Registration, long, Runnable)}. */
    @Override
    public void deregister(Registration registration) {
        memory.deregister(registration, Long.MAX_VALUE, null);
    }

    /** As {@link #deregister}, copying back only the bytes the caller will read. */
    @Override
    public void deregister(Registration registration, long readable) {
        memory.deregister(registration, readable, null);
    }

    /**
     * Invalidates the registration now and copies what was written back outside the turn (by this
     * thread once it lets go of the turn, or by the copier), then runs {@code then} in the turn; at
     * once when there is nothing to copy back.
     */
    @Override
    public void deregister(Registration registration, long readable, Runnable then) {
        memory.deregister(registration, readable, Objects.requireNonNull(then, "then"));
    }

    /** Buffers in memory registered once, which connections receive into and send from without a copy. */
    @Override
    public MessageBuffers messageBuffers() {
        return messages;
    }

    /** @return the message buffers, with the keys of their memory */
    RcMessageBuffers messages() {
        return messages;
    }

    /** @return the fabric's memory: registrations, pools, windows' parking */
    RcMemory memory() {
        return memory;
    }

    /**
     * @return what the fabric holds and has counted: its connections, its registrations, the
     *     {@link RcCounter}s, the RDMA-CM events by kind and the {@link RcGauge}s. Any thread, closed
     *     fabrics too; never waits for the progress thread, so off it a figure may be a moment old
     */
    @Override
    public RcFabricStatistics statistics() {
        Map<RcCounter, Long> counters = new EnumMap<>(RcCounter.class);
        counters.put(RcCounter.PER_CALL_REGISTRATIONS, memory.perCallRegistrations());
        counters.put(RcCounter.WINDOWS_BOUND, memory.windowsBound());
        counters.put(RcCounter.REMOTE_INVALIDATIONS, memory.remoteInvalidations());
        counters.put(RcCounter.LOCAL_INVALIDATIONS, memory.localInvalidations());
        counters.put(RcCounter.BYTES_COPIED, memory.bytesCopied());
        counters.put(RcCounter.FLUSHED_COMPLETIONS, flushedCompletions);
        counters.put(RcCounter.FAILED_COMPLETIONS, failedCompletions);
        Map<CmEventType, Long> events = new EnumMap<>(CmEventType.class);
        for (CmEventType type : CmEventType.values()) {
            events.put(type, router.cmEvents(type));
        }
        Map<RcGauge, Long> gauges = new EnumMap<>(RcGauge.class);
        gauges.put(RcGauge.QUEUE_PAIRS, (long) router.queuePairs());
        gauges.put(RcGauge.POSTED_RECEIVES, postedReceives);
        gauges.put(RcGauge.POSTED_SENDS, postedSends);
        gauges.put(RcGauge.CHUNK_POOL_BYTES_IN_USE, memory.pool().bytesInUse());
        gauges.put(RcGauge.CHUNK_POOL_BYTES_REGISTERED, memory.pool().registeredBytes());
        gauges.put(RcGauge.WINDOW_POOL_BYTES_IN_USE, memory.windowPool().bytesInUse());
        gauges.put(RcGauge.WINDOW_POOL_BYTES_REGISTERED, memory.windowPool().registeredBytes());
        gauges.put(RcGauge.MEMORY_WINDOWS, memoryWindows);
        gauges.put(RcGauge.MESSAGE_BUFFERS_IN_USE, messages.inUse());
        gauges.put(RcGauge.MESSAGE_BUFFER_BYTES_REGISTERED, messages.registeredBytes());
        return new RcFabricStatistics(router.connectionCount(), memory.registrations(), counters, events, gauges);
    }


    /** Counts a work completion of a connection by its outcome. */
    void completed(FabricStatus status) {
        if (status == FabricStatus.FLUSHED) {
            flushedCompletions++;
        } else if (!status.ok()) {
            failedCompletions++;
        }
    }

    /** Builds a connection's socket address once, its IP address shared with the fabric address's. */
    InetSocketAddress socketAddress(InetSocketAddress fromCm) {
        if (fromCm == null) {
            return null;
        }
        return new InetSocketAddress(addressOf(fromCm).inetAddress(), fromCm.getPort());
    }

    /** A connection's queue pair is made: its completions are routed to it from now on. */
    void routed(RcConnection connection) {
        router.routed(connection);
    }

    /** An ended connection: nothing is routed to it any more. */
    void forget(RcConnection connection) {
        router.forget(connection);
    }

    /** @return whether the fabric is open: requests are handed to the acceptor only then */
    boolean running() {
        return running;
    }

    /** Counts receives a connection posted or was given (positive) or got back (negative). */
    void receivesPosted(int count) {
        postedReceives += count;
    }

    /** Counts Sends, RDMA Reads and Writes a connection posted (positive) or got back (negative). */
    void sendsPosted(int count) {
        postedSends += count;
    }

    /** Counts memory windows a connection allocated (positive) or deallocated (negative). */
    void windowsAllocated(int count) {
        memoryWindows += count;
    }

    /**
     * Tears an ended connection down off the progress thread ({@link Reaper}); its queue pair counts
     * among {@link RcGauge#QUEUE_PAIRS} until it is destroyed.
     */
    void reap(RcConnection connection) {
        reaper.submit(() -> {
            try {
                connection.tearDown();
            } finally {
                later(() -> {
                    if (connection.qpNum() >= 0) {
                        router.queuePairDestroyed();
                    }
                    connection.tornDown();
                });
            }
        });
    }

    // ---------------------------------------------------------------------------------- progress

    /** The progress thread's work: in the turn, the commands handed over, then the device. */
    private final class Progress implements ProgressAgent {

        @Override
        public int doWork() throws VerbsException {
            if (!running) {
                return 0;
            }
            int work;
            List<ChunkCopier.Copy> copies;
            turn.take();
            try {
                copiesOwn = router.connectionCount() <= 1;
                work = runCommands() + device.poll(router);
            } finally {
                copiesOwn = false;
                copies = takeOwnCopies();
                turn.release();
            }
            if (copies != null) {
                later(made(copies));
            }
            return work;
        }

        @Override
        public void onStop() {
            running = false;
            turn.take();
            try {
                shutDown();
            } finally {
                turn.release();
            }
        }
    }

    /**
     * Sleeps until an event or a command, outside the turn, so that other threads may post meanwhile:
     * the completion queue is armed and looked at once more in the turn, then the thread waits in
     * {@code poll(2)} on the CM, completion and asynchronous-event descriptors.
     */
    private final class Sleep implements ProgressRunner.Waiter {

        @Override
        public void await() throws VerbsException {
            sleeping = true;
            try {
                boolean quiet;
                turn.take();
                try {
                    quiet = commands.isEmpty() && device.arm(router) == 0;
                } finally {
                    turn.release();
                }
                // A command handed over after the look finds sleeping set and wakes the device.
                if (quiet && commands.isEmpty() && running) {
                    device.await(SLEEP_MILLIS);
                }
            } finally {
                sleeping = false;
            }
        }

        @Override
        public void wake(Thread progress) {
            device.wakeup();
        }
    }

    private int runCommands() {
        int n = 0;
        Runnable command;
        while ((command = commands.poll()) != null) {
            n++;
            runCommand(command);
        }
        return n;
    }

    private static void runCommand(Runnable command) {
        try {
            command.run();
        } catch (RuntimeException e) {
            LOG.error("a command on the RC fabric's progress thread failed", e);
        }
    }

    /**
     * Ends every connection, waits a little for their flushes, waits for the reaper to destroy their
     * queue pairs, then releases the device.
     */
    private void shutDown() {
        try {
            for (RcConnection connection : router.connections()) {
                connection.fail(FabricStatus.CLOSED, "the fabric closed");
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (router.connectionCount() > 0 && System.nanoTime() < deadline) {
                if (runCommands() + device.poll(router) + device.arm(router) == 0) {
                    device.await(10);
                }
            }
            runCommands();
            if (router.connectionCount() > 0) {
                LOG.warn("{} connections did not flush within 5 s; releasing the device anyway",
                        router.connectionCount());
            }
            reaper.close();
            runCommands(); // what the teardowns handed back: memory to the pools
            copier.close();
            awaitCopiesOutside();
            runCommands(); // what follows the copies: memory to the pools, continuations
            if (listenId >= 0) {
                device.destroy(listenId);
            }
            memory.close();
            messages.close();
            device.close();
        } catch (VerbsException | RuntimeException e) {
            LOG.warn("shutting the RC fabric down: {}", e.toString());
        }
    }

    /**
     * Waits, running the commands handed over meanwhile, until the threads that took chunk copies out of
     * the turn have handed back what follows them, at most 5 s: the memory they copy into or out of is
     * released after.
     */
    private void awaitCopiesOutside() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (copiesOutside.get() > 0 && System.nanoTime() < deadline) {
            if (runCommands() == 0) {
                Thread.yield();
            }
        }
        if (copiesOutside.get() > 0) {
            LOG.warn("{} chunk copies outside the turn did not end within 5 s", copiesOutside.get());
        }
    }

    /**
     * Ends every connection (flushed, each listener hears its end), stops listening and releases the
     * device. Waits for the progress thread, unless called on it.
     */
    @Override
    public void close() {
        if (!running) {
            return;
        }
        running = false;
        runner.close();
    }

    @Override
    public String toString() {
        return "RcFabric[" + bind + "]";
    }
}
