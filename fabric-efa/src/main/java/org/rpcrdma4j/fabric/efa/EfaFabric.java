package org.rpcrdma4j.fabric.efa;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.rpcrdma4j.efa.CompletionEntry;
import org.rpcrdma4j.efa.DroppedMessages;
import org.rpcrdma4j.efa.EfaEndpoint;
import org.rpcrdma4j.efa.EfaErrorCode;
import org.rpcrdma4j.efa.EndpointAddress;
import org.rpcrdma4j.efa.EndpointConfig;
import org.rpcrdma4j.efa.EndpointStatistics;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.Device;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.RmaIov;
import org.rpcrdma4j.fabric.BackoffIdleStrategy;
import org.rpcrdma4j.fabric.ConnectionListener;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.fabric.FabricConnection;
import org.rpcrdma4j.fabric.FabricStatus;
import org.rpcrdma4j.fabric.MemoryAccess;
import org.rpcrdma4j.fabric.Registration;
import org.rpcrdma4j.xdr.ConnectPrivateData;
import org.rpcrdma4j.xdr.Segment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Fabric} over one connectionless {@link EfaEndpoint}. Made by {@link SimulatedEfa#newFabric()};
 * the network's progress thread is the fabric's.
 *
 * <h2>Connections</h2>
 * Set up and torn down by {@link ControlMessage}s on the control tag, which carry the RFC 8797 private
 * data RDMA-CM would carry in its REQ and REP. Each side gives a connection an id, unique among its
 * open connections whichever side opened them, and a connection's messages go on the data tag of the
 * receiver's id ({@link #dataTag}): the endpoint matches each message to the receives of its own
 * connection, so one fabric serves peers and is the client of any number of servers, the same peer
 * included, and the data tags carry nothing but RPC-over-RDMA messages.
 *
 * <p>A connection's data tag is open on the endpoint while the connection lives
 * ({@link EfaEndpoint#openTag}). When the connection ends, the tag is closed ({@link EfaEndpoint#closeTag}):
 * its receives are cancelled, what its peer sent that no receive took is dropped, and what the peer still
 * sends on it is dropped on arrival, so a later connection under the same id starts clean. Its peer stays in the
 * endpoint's address vector: the EFA protocol numbers a peer's messages from its insertion, so a
 * peer removed on one side only could not be heard again by the other. A peer that restarted (a new
 * connid on its GID and QPN) or stopped answering ends every connection with it
 * ({@link FabricStatus#PEER_UNREACHABLE}), and is removed from the address vector with the last.
 * The endpoint takes messages on the fabric's tags only when it declares the control tag alone
 * ({@link #tags()}), as {@link SimulatedEfa} configures it; an endpoint that takes every tag still drops
 * what comes on the tags of ended connections.
 *
 * <p>A message the endpoint drops for lack of room ({@link DroppedMessages}: its peer sent beyond its
 * credits, faster than the receives are posted, until the unexpected queue was full) is lost, so its
 * connection ends with {@link FabricStatus#RECEIVER_NOT_READY}, counted ({@link EfaFabricStatistics#overrunConnections()})
 * and logged once, and the peer hears why (OVERRUN) and ends its side the same way: as a verbs RC
 * connection breaks when a Send meets receiver-not-ready with Linux's RNR retry count of 0.
 *
 * <h2>Lifecycle</h2>
 * {@link #close()} ends every connection, tells every peer it talked to that it leaves (LEAVE), waits a
 * bounded time for those messages to go, then closes the endpoint, which releases all it holds, and
 * stops being progressed. A peer that hears LEAVE ends its connections with this fabric and removes it
 * from its address vector, so closed clients cost a server nothing. Each of these steps runs even if
 * one before it failed; the close finishes, then logs the first failure once, at WARN (the progress
 * thread lets no exception escape). Deregistering after the endpoint closed does nothing: the close
 * released every registration.
 *
 * <h2>Addresses</h2>
 * A connection shows the GIDs of both ends as IP addresses ({@link FabricAddress#inetAddress()}). The
 * requester's end has as port the responder's id mapped into the dynamic range ({@link #port}), the
 * responder's end its QPN.
 *
 * <h2>Buffer ownership</h2>
 * A posted or sent buffer belongs to the endpoint until its completion, which this class hands to the
 * connection's listener with the same buffer.
 *
 * <p>RDMA: a {@link Registration} is an endpoint {@link MemoryRegion} (handle = key, address = the
 * region's address); a segment maps onto {@code efa_rma_iov} (handle = key, offset = addr, length =
 * len) and the endpoint's direct RDMA read and write move it.
 */
public final class EfaFabric implements Fabric, AutoCloseable {

    /** The tag of connection control messages ("RDMA" then 2). */
    public static final long CONTROL_TAG = 0x5244_4D41_0000_0002L;
    /** The data tags: "RDMA", then 1, then the receiver's connection id in the low 16 bits. */
    public static final long DATA_TAG = 0x5244_4D41_0001_0000L;
    /** The port of the requester's end of connection id 1; id n has port n + 49151. */
    public static final int FIRST_PORT = 49152;
    /**
     * How long an idle progress thread of {@link #open} goes on before it parks, when nothing can happen
     * until it is woken: a worker's reply or the caller's next call that comes within it finds the
     * thread awake (the simulated network's and the RC fabric's value).
     */
    private static final long QUIET_SPIN_NS = 50_000;
    /** The most connection ids: their ports fill the dynamic range up to 65535. */
    public static final int MAX_CONNECTIONS = 65536 - FIRST_PORT;

    private static final Logger LOG = LoggerFactory.getLogger(EfaFabric.class);
    private static final int CONTROL_RECEIVES = 16;
    /**
     * How long, on the loop's clock, a closing fabric gives its CLOSE and LEAVE messages before it
     * closes the endpoint: a peer that is gone never acknowledges them (on the simulated network, 100,000
     * steps of its clock).
     */
    private static final long CLOSING_NANOS = 100_000_000;
    /** How long {@link #close} waits for the progress thread. */
    private static final long CLOSE_WAIT_S = 10;

    private enum Kind { CONTROL_RECEIVE, CONTROL_SEND, RECEIVE, SEND, RDMA }

    /** An operation posted on the endpoint; {@code connection} is null for control messages. */
    private record Op(Kind kind, EfaConnection connection, long context, ByteBuffer buffer) {
    }

    private record ControlSend(long peer, ByteBuffer message) {
    }

    /** Replaced when the device restarts ({@link #restart}); read by {@link #statistics()} on any thread. */
    private volatile EfaEndpoint endpoint;
    private final EfaProgressLoop loop;
    /** Run once the fabric has closed, on the progress thread: its network forgets it. */
    private final Consumer<EfaFabric> onClosed;
    private volatile FabricAddress localAddress;
    private final Map<Long, Op> ops = new HashMap<>();
    private final Map<Integer, EfaConnection> connections = new HashMap<>();
    private final ArrayDeque<ControlSend> controlWaiting = new ArrayDeque<>();
    private final ArrayDeque<Runnable> deferred = new ArrayDeque<>();
    private final Map<Integer, MemoryRegion> regions = new HashMap<>();
    /**
     * Registrations made before a {@link #restart}, by key, with the endpoint they were made on: they
     * are deregistered there (the simulated device lives on), or were freed with it (a closed one).
     */
    private final Map<Integer, EfaEndpoint> before = new HashMap<>();
    /** The peers this fabric talked to, told when it leaves. */
    private final Set<Long> peers = new HashSet<>();
    /** The sizes of {@link #connections} and {@link #regions}, kept apart for {@link #statistics()} on any thread. */
    private volatile int connectionCount;
    private volatile int registrationCount;
    /** Only the progress thread writes it; read by {@link #statistics()} on any thread. */
    private volatile long overrunConnections;
    private Consumer<ConnectRequest> acceptor;
    private CompletableFuture<Void> closing;
    /** The first step of {@link #close} that failed, logged when the close finishes. */
    private RuntimeException closeFailure;
    /** When a closing fabric stops waiting for its goodbyes, on the loop's clock; set by its first progress. */
    private long closingDeadline;
    private boolean closingStarted;
    private volatile boolean closed;
    private int lastId;
    private long nextOp;

    EfaFabric(EfaEndpoint endpoint, EfaProgressLoop loop, Consumer<EfaFabric> onClosed) {
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
        this.loop = loop;
        this.onClosed = Objects.requireNonNull(onClosed, "onClosed");
        this.localAddress = addressOf(endpoint.address());
    }

    /**
     * Opens a fabric on an EFA RDM endpoint over a device, with a progress thread of its own that
     * drives the endpoint and the device: how a fabric provider runs the transport on a device of its
     * own (the {@code udp} fabric on the UDP device, {@code efa-verbs} on the verbs device). An idle
     * thread parks until woken only when the device has armed a notification
     * ({@link Device#armCompletionNotification}); a device that cannot notify is polled, the thread
     * backing off as {@link BackoffIdleStrategy#forProgress()} does.
     *
     * @param device     the device, which the fabric owns from now on: its endpoint closes it
     * @param threadName the progress thread's name
     * @return the fabric, open
     */
    public static EfaFabric open(Device device, String threadName) {
        final EfaEndpoint endpoint;
        try {
            endpoint = new EfaEndpoint(device, EndpointConfig.DEFAULT);
        } catch (RuntimeException e) {
            device.close();
            throw e;
        }
        EfaProgressLoop loop = EfaProgressLoop.start(threadName, System::nanoTime, now -> { }, () -> false,
                QUIET_SPIN_NS, BackoffIdleStrategy.forProgress());
        return loop.call(() -> loop.attach(endpoint, closed -> loop.close()));
    }

    /**
     * @param address an EFA endpoint address
     * @return the transport's view of it: the raw address, the GID as identity, the QPN as number
     */
    public static FabricAddress addressOf(EndpointAddress address) {
        ByteBuffer raw = ByteBuffer.allocate(EndpointAddress.LENGTH);
        address.encode(raw, 0);
        return new FabricAddress(raw.array(), address.gid().toBytes(), address.qpn());
    }

    /**
     * @param address a fabric address of an EFA endpoint ({@link #localAddress()})
     * @return the endpoint's raw address, for {@link EfaEndpoint#insert}
     */
    public static EndpointAddress endpointAddressOf(FabricAddress address) {
        return EndpointAddress.decode(ByteBuffer.wrap(address.raw()), 0);
    }

    /**
     * @param connectionId a receiver's connection id
     * @return the tag its data messages travel on
     */
    public static long dataTag(int connectionId) {
        return DATA_TAG | connectionId;
    }

    /**
     * @return the tags the fabric receives on from the start, for
     *     {@link org.rpcrdma4j.efa.EndpointConfig#withTags}: the control tag. Each connection opens its
     *     data tag while it lives; the endpoint drops at once what a peer sends on any other tag
     */
    public static long[] tags() {
        return new long[] {CONTROL_TAG};
    }

    /**
     * @param responderId the responder's id of a connection
     * @return the port of the connection's requester end
     */
    static int port(int responderId) {
        return FIRST_PORT + responderId - 1;
    }

    @Override
    public FabricAddress localAddress() {
        return localAddress;
    }

    @Override
    public void execute(Runnable command) {
        loop.execute(command);
    }

    @Override
    public boolean onProgressThread() {
        return loop.inLoop();
    }

    @Override
    public void listen(Consumer<ConnectRequest> newAcceptor) {
        requireOpen();
        if (acceptor != null) {
            throw new IllegalStateException("this fabric has an acceptor already");
        }
        acceptor = Objects.requireNonNull(newAcceptor, "acceptor");
    }

    @Override
    public void stopListening() {
        acceptor = null;
    }

    @Override
    public FabricConnection connect(FabricAddress peer, ConnectPrivateData privateData, List<ByteBuffer> receives,
                                    ConnectionListener listener) {
        requireOpen();
        long handle = endpoint.insert(endpointAddressOf(peer));
        EfaConnection connection = open(handle, peer, true, 0, listener);
        receives.forEach(connection::postReceive);
        sendControl(handle, ControlMessage.connect(privateData, localAddress, connection.id()));
        return connection;
    }

    @Override
    public Registration register(ByteBuffer memory, Set<MemoryAccess> access) {
        Set<Access> rights = EnumSet.noneOf(Access.class);
        for (MemoryAccess right : access) {
            rights.add(Access.valueOf(right.name()));
        }
        MemoryRegion region = endpoint.register(memory, rights);
        if (region == null) {
            return null;
        }
        regions.put(region.key(), region);
        registrationCount = regions.size();
        return new Registration(region.key(), region.address(), region.length());
    }

    @Override
    public void deregister(Registration registration) {
        MemoryRegion region = regions.remove(registration.handle());
        registrationCount = regions.size();
        if (closed) {
            // Closing the endpoint released every registration: nothing is left to free.
            return;
        }
        if (region == null) {
            throw new IllegalStateException("not registered here or deregistered already: " + registration);
        }
        EfaEndpoint on = before.remove(registration.handle());
        if (on == null) {
            endpoint.deregister(region);
        } else if (!on.isClosed()) {
            on.deregister(region);
        }
    }

    /**
     * Closes the fabric: ends every connection (their listeners hear the end), tells its peers it
     * leaves, closes the endpoint and stops its progress. Waits for the progress thread unless called
     * on it. Closing again does nothing.
     */
    @Override
    public void close() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            execute(() -> beginClose(done));
        } catch (IllegalStateException e) {
            LOG.debug("the progress loop stopped already: nothing runs the endpoint any more");
            return;
        }
        if (!onProgressThread()) {
            try {
                done.get(CLOSE_WAIT_S, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                LOG.warn("{} did not close within {} s", localAddress, CLOSE_WAIT_S);
            }
        }
    }

    /** @return whether the fabric is closed: its endpoint released, no longer progressed */
    public boolean isClosed() {
        return closed;
    }

    private void beginClose(CompletableFuture<Void> done) {
        if (closing != null) {
            closing.whenComplete((ignored, error) -> done.complete(null));
            return;
        }
        closing = done;
        acceptor = null;
        for (EfaConnection connection : new ArrayList<>(connections.values())) {
            closeStep(connection::close);
        }
        for (long peer : peers) {
            closeStep(() -> sendControl(peer, ControlMessage.leave()));
        }
    }

    /** @return the endpoint the fabric runs on now; progress thread only */
    EfaEndpoint endpoint() {
        return endpoint;
    }

    /**
     * Runs work on the fabric's progress thread and waits for its result.
     *
     * @throws IllegalStateException if the work threw (the cause) or the thread did not answer
     */
    <T> T onProgressThread(java.util.function.Supplier<T> work) {
        return loop.call(work);
    }

    /**
     * The process behind the fabric died ({@link SimulatedEfa#kill}) and tells nobody: every connection
     * ends with {@link FabricStatus#FABRIC_ERROR} and the fabric closes at once, without CLOSE or LEAVE
     * (those waiting are dropped). Closing the endpoint closes its device, so what peers send to it from
     * then on fails. Progress thread only.
     */
    void kill() {
        if (closing == null) {
            closing = new CompletableFuture<>();
        }
        acceptor = null;
        controlWaiting.clear();
        for (EfaConnection connection : new ArrayList<>(connections.values())) {
            connection.end(FabricStatus.FABRIC_ERROR, "this fabric's process died");
        }
        finishClose();
    }

    /**
     * Once the goodbyes went (or the wait is over): closes the endpoint, hands out its last completions
     * and leaves the loop, whatever failed before; the first failure of the close is logged then, once.
     */
    private void finishClose() {
        closeStep(endpoint::close);
        closed = true;
        while (endpoint.poll(this::onCompletion, Integer.MAX_VALUE) > 0 || !deferred.isEmpty()) {
            while (!deferred.isEmpty()) {
                EfaProgressLoop.runSafely(deferred.poll());
            }
        }
        ops.clear();
        regions.clear();
        before.clear();
        registrationCount = 0;
        loop.detach(this);
        EfaProgressLoop.runSafely(() -> onClosed.accept(this));
        closing.complete(null);
        if (closeFailure != null) {
            LOG.warn("{} closed, but a step of its close failed", localAddress, closeFailure);
        }
    }

    /** Runs one step of the close; one that fails is kept (the first) or suppressed in it, and stops no other. */
    private void closeStep(Runnable step) {
        try {
            step.run();
        } catch (RuntimeException e) {
            if (closeFailure == null) {
                closeFailure = e;
            } else {
                closeFailure.addSuppressed(e);
            }
        }
    }

    private boolean goodbyesSent() {
        return controlWaiting.isEmpty() && connections.isEmpty()
                && ops.values().stream().noneMatch(op -> op.kind() == Kind.CONTROL_SEND);
    }

    private void requireOpen() {
        if (closing != null) {
            throw new IllegalStateException(localAddress + " is closed");
        }
    }

    /**
     * @return what the fabric holds and has counted: its connections, its registrations, its
     *     endpoint's counters and gauges ({@link EfaEndpoint#statistics()}), its device's counters, the
     *     failures its progress loop caught and the connections ended for overrunning their receives.
     *     Any thread; never waits for the progress loop, so off it a figure may be a moment old
     */
    @Override
    public EfaFabricStatistics statistics() {
        EfaEndpoint now = endpoint;      // one endpoint for both, though a restart may replace it
        return new EfaFabricStatistics(connectionCount, registrationCount, now.statistics(), now.deviceCounters(),
                loop.failures(), overrunConnections);
    }

    /** Opens a connection under a free id. */
    private EfaConnection open(long handle, FabricAddress peer, boolean requester, int peerId,
                               ConnectionListener listener) {
        if (connections.size() >= MAX_CONNECTIONS) {
            throw new IllegalStateException("all " + MAX_CONNECTIONS + " connection ids are in use");
        }
        do {
            lastId = lastId % MAX_CONNECTIONS + 1;
        } while (connections.containsKey(lastId));
        EfaConnection connection = new EfaConnection(this, lastId, handle, peer, requester, peerId, listener);
        connections.put(lastId, connection);
        connectionCount = connections.size();
        endpoint.openTag(dataTag(lastId));
        peers.add(handle);
        return connection;
    }

    /**
     * The device's queue pair was restarted ({@link SimulatedEfa#restart}): the process behind this fabric
     * died and a new one runs on its GID and QPN with a new connid, over {@code reborn}. The old endpoint
     * is dropped, not closed (its device is now the new endpoint's), and nothing it held comes back: its
     * operations are flushed here, its peer handles forgotten. Every connection ends with
     * {@link FabricStatus#FABRIC_ERROR}, as when a device goes away, and its peer gets a CLOSE from the new
     * endpoint: that packet carries the new connid, so the peer's endpoint takes it as a restart of the old
     * peer (EFA RDM v4 §4.4) and ends what it had with it at once, instead of sending into a queue pair that
     * drops everything. An acceptor stays, and serves on the new address. Progress thread only.
     */
    void restart(EfaEndpoint reborn) {
        EfaEndpoint old = endpoint;
        regions.keySet().forEach(key -> before.putIfAbsent(key, old));
        endpoint = reborn;
        localAddress = addressOf(reborn.address());
        List<Op> lost = new ArrayList<>(ops.values());
        ops.clear();
        controlWaiting.clear();
        peers.clear();
        postControlReceives();
        for (EfaConnection connection : new ArrayList<>(connections.values())) {
            if (!connection.closed()) {
                long peer = endpoint.insert(endpointAddressOf(connection.peer()));
                peers.add(peer);
                sendControl(peer, ControlMessage.close(connection.peerId()));
                connection.end(FabricStatus.FABRIC_ERROR, "this fabric's process restarted: its queue pair came"
                        + " back as " + localAddress.inetAddress().getHostAddress() + " with a new connid, knowing"
                        + " nothing of this connection");
            }
        }
        // Control operations belong to no connection: fresh control receives were posted above.
        for (Op op : lost) {
            switch (op.kind()) {
                case RECEIVE -> EfaProgressLoop.runSafely(() ->
                        op.connection().onReceived(op.context(), op.buffer(), FabricStatus.FLUSHED, 0));
                case SEND -> EfaProgressLoop.runSafely(() ->
                        op.connection().onSendCompleted(op.context(), FabricStatus.FLUSHED));
                case RDMA -> EfaProgressLoop.runSafely(() ->
                        op.connection().onRdmaCompleted(op.context(), FabricStatus.FLUSHED));
                default -> { }
            }
        }
    }

    /**
     * A connection has ended and reported all it held: its id is free again. A peer the endpoint
     * declared unreachable (or that restarted) is removed with its last connection: the endpoint
     * drops everything from it, so it could not even say it leaves, and a new process on its address
     * is a new peer.
     */
    void forget(EfaConnection connection) {
        connections.remove(connection.id(), connection);
        connectionCount = connections.size();
        long peer = connection.peerHandle();
        if (connection.endStatus() == FabricStatus.PEER_UNREACHABLE && !closed
                && connections.values().stream().noneMatch(other -> other.peerHandle() == peer)) {
            peers.remove(peer);
            try {
                endpoint.remove(peer);
            } catch (IllegalArgumentException e) {
                LOG.debug("peer {} was gone already", peer);
            }
        }
    }

    /** @return the endpoint context of a receive posted for a connection, or -1 if there was no room */
    long receive(EfaConnection connection, long peer, ByteBuffer buffer, long tag) {
        if (closed) {
            return -1;
        }
        long context = nextOp++;
        if (!endpoint.recvTagged(peer, buffer, tag, 0, context)) {
            return -1;
        }
        ops.put(context, new Op(Kind.RECEIVE, connection, context, buffer));
        return context;
    }

    boolean send(EfaConnection connection, long peer, ByteBuffer message, long tag, long context) {
        long op = nextOp++;
        if (!endpoint.sendTagged(peer, message, tag, op)) {
            return false;
        }
        ops.put(op, new Op(Kind.SEND, connection, context, null));
        return true;
    }

    boolean rdma(EfaConnection connection, boolean read, long peer, Registration local, long localOffset,
                 Segment remote, long context) {
        MemoryRegion region = regions.get(local.handle());
        if (region == null) {
            throw new IllegalStateException("not registered here: " + local);
        }
        RmaIov iov = new RmaIov(remote.offset(), remote.unsignedLength(), remote.handle());
        long op = nextOp++;
        boolean started = read ? endpoint.read(peer, region, localOffset, iov, op)
                : endpoint.write(peer, region, localOffset, iov, op);
        if (started) {
            ops.put(op, new Op(Kind.RDMA, connection, context, null));
        }
        return started;
    }

    /**
     * Closes an ended connection's data tag: its receives complete, cancelled or with the message they
     * took, as usual, and what its peer sends on it from now on is dropped.
     */
    void closeTag(int connectionId) {
        if (!closed) {
            endpoint.closeTag(dataTag(connectionId));
        }
    }

    /** Runs work on the progress thread's next turn, in order. */
    void defer(Runnable work) {
        deferred.add(work);
    }

    void sendControl(long peer, ControlMessage message) {
        ControlSend send = new ControlSend(peer, message.encode());
        if (!controlWaiting.isEmpty() || !postControlSend(send)) {
            controlWaiting.add(send);
        }
    }

    private boolean postControlSend(ControlSend send) {
        long op = nextOp++;
        if (!endpoint.sendTagged(send.peer(), send.message(), CONTROL_TAG, op)) {
            return false;
        }
        ops.put(op, new Op(Kind.CONTROL_SEND, null, 0, send.message()));
        return true;
    }

    /**
     * Posts the control receives, as the loop takes the fabric on and on a restarted endpoint: from then
     * on the fabric answers control messages, and refuses a CONNECT while it does not listen, as RDMA-CM
     * rejects a request for a port no one listens on (a CONNECT that found no receive would wait
     * unanswered). Loop thread only.
     */
    void postControlReceives() {
        for (int i = 0; i < CONTROL_RECEIVES; i++) {
            postControlReceive(ByteBuffer.allocate(ControlMessage.MAX_LENGTH));
        }
    }

    private void postControlReceive(ByteBuffer buffer) {
        long context = nextOp++;
        if (endpoint.recvTagged(EfaEndpoint.ADDR_UNSPEC, buffer.clear(), CONTROL_TAG, 0, context)) {
            ops.put(context, new Op(Kind.CONTROL_RECEIVE, null, context, buffer));
        } else {
            LOG.warn("the endpoint has no room for another control receive; connecting with fewer");
        }
    }

    /**
     * @return whether the fabric has nothing to do until a command, a device completion or its
     *     endpoint's next operation: not closing, no control message or deferred work waiting, its
     *     endpoint idle; loop thread only
     */
    boolean idle() {
        return closing == null && controlWaiting.isEmpty() && deferred.isEmpty() && endpoint.idle();
    }

    /** Progresses the endpoint and hands completions to the connections; loop thread only. */
    int progress(long nowNs, int pollMax) {
        if (closing != null) {
            if (!closingStarted) {
                closingStarted = true;
                closingDeadline = nowNs + CLOSING_NANOS;
            }
            if (goodbyesSent() || nowNs - closingDeadline >= 0) {
                finishClose();
                return 1;
            }
        }
        int work = endpoint.progress(nowNs);
        work += endpoint.pollDropped(this::onDropped);
        while (!controlWaiting.isEmpty() && postControlSend(controlWaiting.peek())) {
            controlWaiting.poll();
            work++;
        }
        for (int i = deferred.size(); i > 0; i--) {
            EfaProgressLoop.runSafely(deferred.poll());
            work++;
        }
        return work + endpoint.poll(this::onCompletion, pollMax);
    }

    private void onCompletion(CompletionEntry entry) {
        Op op = ops.remove(entry.context());
        if (op == null) {
            return;
        }
        FabricStatus status = status(entry.error());
        if (entry.error() == EfaErrorCode.PEER_RESTARTED && op.connection() != null) {
            op.connection().peerRestarted();
        }
        switch (op.kind()) {
            case CONTROL_RECEIVE -> {
                if (entry.ok()) {
                    EfaProgressLoop.runSafely(() -> onControl(entry.source(), op.buffer(), (int) entry.length()));
                }
                if (!closed) {
                    postControlReceive(op.buffer());
                }
            }
            case CONTROL_SEND -> {
                if (!entry.ok()) {
                    LOG.debug("a control message to peer {} failed: {}", entry.source(), entry.error());
                }
            }
            case RECEIVE -> EfaProgressLoop.runSafely(() ->
                    op.connection().onReceived(op.context(), op.buffer(), status, (int) entry.length()));
            case SEND -> EfaProgressLoop.runSafely(() -> op.connection().onSendCompleted(op.context(), status));
            case RDMA -> EfaProgressLoop.runSafely(() -> op.connection().onRdmaCompleted(op.context(), status));
        }
    }

    /** The table from the endpoint's completion errors to the transport's statuses and their scope. */
    static FabricStatus status(EfaErrorCode error) {
        return switch (error) {
            case SUCCESS -> FabricStatus.SUCCESS;
            case MESSAGE_TRUNCATED, REMOTE_ERROR_BAD_LENGTH -> FabricStatus.MESSAGE_TOO_LONG;
            case LOCAL_ERROR_INVALID_LKEY, LOCAL_ERROR_BAD_LENGTH -> FabricStatus.LOCAL_PROTECTION;
            case REMOTE_ERROR_BAD_ADDRESS -> FabricStatus.REMOTE_ACCESS;
            case REMOTE_ERROR_RNR -> FabricStatus.RECEIVER_NOT_READY;
            case REMOTE_ERROR_BAD_DEST_QPN, LOCAL_ERROR_UNRESP_REMOTE, LOCAL_ERROR_UNREACH_REMOTE, PEER_UNREACHABLE,
                 PEER_RESTARTED -> FabricStatus.PEER_UNREACHABLE;
            case CANCELED -> FabricStatus.FLUSHED;
            default -> FabricStatus.FABRIC_ERROR;
        };
    }

    /** Messages of a connection were dropped: its peer overran its credits, and the connection ends. */
    private void onDropped(DroppedMessages dropped) {
        EfaConnection connection = dropped.tagged() && (dropped.tag() & ~0xFFFFL) == DATA_TAG
                ? connections.get((int) (dropped.tag() & 0xFFFF)) : null;
        if (connection == null || connection.peerHandle() != dropped.source() || connection.closed()) {
            LOG.debug("peer {} lost {} messages on tag 0x{} of no open connection", dropped.source(),
                    dropped.messages(), Long.toHexString(dropped.tag()));
            return;
        }
        String detail = String.format("the peer overran its credits: %d messages unexpected, at the endpoint's"
                + " bound of %d %s; %d dropped", dropped.unexpected(), dropped.limit(), bound(dropped.bound()),
                dropped.messages());
        overrunConnections++;
        LOG.warn("closing {}: {}", connection, detail);
        connection.overrun(detail);
    }

    private static String bound(DroppedMessages.Bound bound) {
        return switch (bound) {
            case MESSAGES_PER_PEER -> "unexpected messages per peer";
            case BYTES_PER_PEER -> "unexpected bytes per peer";
            case MESSAGES_TOTAL -> "unexpected messages in all";
            case BYTES_TOTAL -> "unexpected bytes in all";
            case RX_ENTRIES -> "RX entries";
        };
    }

    private void onControl(long source, ByteBuffer buffer, int length) {
        ControlMessage message = ControlMessage.decode(buffer, buffer.position(), length).orElse(null);
        if (message == null) {
            LOG.debug("dropped a malformed control message from peer {}", source);
            return;
        }
        peers.add(source);
        switch (message.type()) {
            case CONNECT -> onConnect(source, message);
            case ACCEPT -> {
                EfaConnection connection = connections.get(message.receiverId());
                if (connection != null && connection.peerHandle() == source && connection.requester()
                        && connection.connecting()) {
                    connection.established(message.privateData(), message.senderId());
                } else {
                    // Accepted after this side gave up, or never asked: tear the peer's side down.
                    sendControl(source, ControlMessage.close(message.senderId()));
                }
            }
            case CLOSE -> {
                EfaConnection connection = connections.get(message.receiverId());
                if (connection != null && connection.peerHandle() == source) {
                    connection.end(connection.connecting() ? FabricStatus.REFUSED : FabricStatus.CLOSED,
                            connection.connecting() ? "refused by the peer" : "closed by the peer");
                }
            }
            case OVERRUN -> {
                EfaConnection connection = connections.get(message.receiverId());
                if (connection != null && connection.peerHandle() == source) {
                    connection.end(FabricStatus.RECEIVER_NOT_READY, "the peer closed the connection: this side"
                            + " overran its credits, and the peer dropped messages it had no receive for");
                }
            }
            case LEAVE -> onLeave(source);
        }
    }

    /** The peer's endpoint closes: its connections end, and what the endpoint holds for it goes. */
    private void onLeave(long source) {
        for (EfaConnection connection : new ArrayList<>(connections.values())) {
            if (connection.peerHandle() == source) {
                connection.end(FabricStatus.CLOSED, "the peer's fabric closed");
            }
        }
        peers.remove(source);
        try {
            endpoint.remove(source);
        } catch (IllegalArgumentException e) {
            LOG.debug("peer {} was gone already", source);
        }
    }

    private void onConnect(long source, ControlMessage connect) {
        // The same requester connection asking again (its process restarted and reused the id) replaces the old one.
        for (EfaConnection existing : new ArrayList<>(connections.values())) {
            if (existing.peerHandle() == source && !existing.requester() && existing.peerId() == connect.senderId()) {
                existing.end(FabricStatus.CLOSED, "the requester connected again");
            }
        }
        Request request = new Request(source, connect);
        if (acceptor != null) {
            acceptor.accept(request);
        }
        if (request.accepted == null) {
            sendControl(source, ControlMessage.close(connect.senderId()));
        } else {
            sendControl(source, ControlMessage.accept(request.ours, connect.senderId(), request.accepted.id()));
            request.accepted.established(connect.privateData(), connect.senderId());
        }
    }

    /** A CONNECT handed to the acceptor; answered once the acceptor returns. */
    private final class Request implements ConnectRequest {

        private final long source;
        private final ControlMessage connect;
        private EfaConnection accepted;
        private ConnectPrivateData ours;
        private boolean answered;

        Request(long source, ControlMessage connect) {
            this.source = source;
            this.connect = connect;
        }

        @Override
        public FabricAddress peer() {
            return connect.address();
        }

        @Override
        public ConnectPrivateData privateData() {
            return connect.privateData();
        }

        @Override
        public FabricConnection accept(ConnectPrivateData privateData, List<ByteBuffer> receives,
                                       ConnectionListener listener) {
            answer();
            ours = Objects.requireNonNull(privateData, "privateData");
            accepted = open(source, connect.address(), false, connect.senderId(), listener);
            receives.forEach(accepted::postReceive);
            return accepted;
        }

        @Override
        public void reject() {
            answer();
        }

        private void answer() {
            if (answered) {
                throw new IllegalStateException("the request was answered already");
            }
            answered = true;
        }
    }
}
