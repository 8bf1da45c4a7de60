package org.rpcrdma4j.transport.oncrpc;

import java.io.IOException;
import java.nio.channels.CompletionHandler;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.dcache.oncrpc4j.rpc.IoStrategy;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.rpcrdma4j.transport.CallStepEvent;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.transport.Fabric;
import org.rpcrdma4j.transport.FabricAddress;
import org.rpcrdma4j.transport.MessageBytes;
import org.rpcrdma4j.transport.RdmaTransportException;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.TransportStatistics;
import org.rpcrdma4j.transport.conn.Connection;
import org.rpcrdma4j.transport.conn.ReplyHandler;
import org.rpcrdma4j.transport.conn.Requester;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An RPC-over-RDMA connection for oncrpc4j client code: {@link #transport()} is the
 * {@link RpcTransport} for {@code new RpcCall(prog, vers, auth, transport)}, so existing clients run
 * unchanged. Replies are matched by XID through oncrpc4j's {@link ReplyQueue}, which also times
 * calls out with the timeouts the caller gives {@code RpcCall.call} (with oncrpc4j's semantics, but
 * without a timer task per call: one timer checks the deadlines, up to 10 ms late); the chunk memory
 * of a call that times out is deregistered at once ({@link Requester#abandon}).
 *
 * <p>The server's backward calls (RFC 8167) on the same connection go to the callback services
 * registered with {@link #registerCallbackService}, dispatched with oncrpc4j's semantics (a program
 * not registered gets PROG_UNAVAIL) on callback threads the client owns, as many as the backward
 * credits it grants; their replies go back inline. The client keeps one receive posted per backward
 * credit granted in addition to those for forward replies (RFC 8167).
 *
 * <p>{@code transport().getPeerTransport()} is the backward direction of the connection, on which the
 * client only replies: a call sent on it fails. Its own peer, the transport that callback services
 * see {@code getPeerTransport()} of, is {@link #transport()}.
 *
 * <p>A call is taken from oncrpc4j's {@link Xdr} without copying it: the server reads its Read
 * chunks where they lie (an argument encoded shallow, in the caller's own buffer), so a caller must
 * not change a buffer it encoded until the call ends. oncrpc4j encodes every call into an Xdr of its
 * own and never reuses it.
 *
 * <p>A fabric carries any number of clients beside a server, each on a connection of its own. Reply
 * handlers run where the {@link IoStrategy} says, as those of
 * oncrpc4j's {@code OncRpcClient}: by default ({@link IoStrategy#SAME_THREAD}) on the fabric's progress
 * thread, which saves a thread hand-off per reply; a handler must then not wait for another reply (a
 * synchronous call from inside a handler waits for itself, as on oncrpc4j's selector thread). With
 * {@link IoStrategy#WORKER_THREAD} they run on a single thread the client owns. Callback services
 * never run on the progress thread.
 */
public final class RdmaRpcClient implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RdmaRpcClient.class);
    /** How long {@link #close} waits for the progress thread to fail the pending calls. */
    private static final long CLOSE_WAIT_S = 10;

    private final Fabric fabric;
    private final Requester requester;
    private final ReplyQueue replyQueue = new TimeoutReplyQueue(this::abandon);
    /** The reply thread, {@code null} when replies are delivered on the progress thread. */
    private final ExecutorService replies;
    private final ReplyDelivery delivery;
    private final Transport transport = new Transport();
    private final Map<OncRpcProgram, RpcDispatchable> callbackServices = new ConcurrentHashMap<>();
    private final ExecutorService callbackWorkers;
    private final CallDispatcher callbackDispatcher;
    private final CallbackTransport callbackTransport;
    private final AtomicInteger callbacksInProgress = new AtomicInteger();
    private final AtomicBoolean closing = new AtomicBoolean();
    private volatile Connection connection;

    private RdmaRpcClient(Fabric fabric, TransportConfig config, DdpPolicy policy, IoStrategy ioStrategy) {
        this.fabric = fabric;
        this.replies = ioStrategy != IoStrategy.WORKER_THREAD ? null
                : Executors.newSingleThreadExecutor(DaemonThreads.named("rdma-rpc-client-replies"));
        this.delivery = new ReplyDelivery(replyQueue, replies == null ? Runnable::run : replies);
        this.requester = new Requester(fabric, config, policy, new Replies(), this::onBackwardCall);
        this.callbackWorkers = Executors.newFixedThreadPool(config.backwardResponderCredits(),
                DaemonThreads.named("rdma-rpc-client-callbacks"));
        this.callbackDispatcher = new CallDispatcher(callbackServices, callbackWorkers);
        this.callbackTransport = new CallbackTransport(requester, transport, callbacksInProgress::decrementAndGet);
    }

    /**
     * Connects to a server for calls without DDP-eligible items ({@link DdpPolicy#NONE}).
     *
     * @param fabric  the fabric to connect on; the client does not own it
     * @param server  the server's fabric address
     * @param config  inline sizes and the credits to request
     * @param timeout how long to wait for the server's ACCEPT
     * @return the connected client
     * @throws IOException if the server did not accept in time or closed the connection
     */
    public static RdmaRpcClient connect(Fabric fabric, FabricAddress server, TransportConfig config, Duration timeout)
            throws IOException {
        return connect(fabric, server, config, DdpPolicy.NONE, timeout);
    }

    /**
     * Connects to a server and waits until the private data is exchanged; reply handlers run on the
     * progress thread ({@link IoStrategy#SAME_THREAD}, oncrpc4j's client default).
     *
     * @param fabric  the fabric to connect on; the client does not own it
     * @param server  the server's fabric address
     * @param config  inline sizes, segment size and the credits to request
     * @param policy  the DDP policy of the program called: which call items go in Read chunks, which
     *                results get Write chunks and when a Reply chunk is needed
     * @param timeout how long to wait for the server's ACCEPT
     * @return the connected client
     * @throws IOException if the server did not accept in time or closed the connection
     */
    public static RdmaRpcClient connect(Fabric fabric, FabricAddress server, TransportConfig config, DdpPolicy policy,
                                        Duration timeout) throws IOException {
        return connect(fabric, server, config, policy, timeout, IoStrategy.SAME_THREAD);
    }

    /**
     * Connects to a server and waits until the private data is exchanged.
     *
     * @param fabric     the fabric to connect on; the client does not own it
     * @param server     the server's fabric address
     * @param config     inline sizes, segment size and the credits to request
     * @param policy     the DDP policy of the program called
     * @param timeout    how long to wait for the server's ACCEPT
     * @param ioStrategy where reply handlers run: on a reply thread of the client's for
     *                   {@link IoStrategy#WORKER_THREAD}, otherwise on the progress thread that received
     *                   the reply (for {@link IoStrategy#LEADER_FOLLOWER} too: that thread is the leader)
     * @return the connected client
     * @throws IOException if the server did not accept in time or closed the connection
     */
    public static RdmaRpcClient connect(Fabric fabric, FabricAddress server, TransportConfig config, DdpPolicy policy,
                                        Duration timeout, IoStrategy ioStrategy) throws IOException {
        RdmaRpcClient client = new RdmaRpcClient(fabric, config, Objects.requireNonNull(policy, "policy"),
                Objects.requireNonNull(ioStrategy, "ioStrategy"));
        try {
            client.connection = client.requester.connect(Objects.requireNonNull(server, "server"))
                    .get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            return client;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            client.close();
            throw new IOException("interrupted while connecting to " + server, e);
        } catch (ExecutionException | TimeoutException e) {
            client.close();
            throw new RdmaTransportException(RdmaTransportException.Scope.CONNECTION,
                    "could not connect to " + server + " within " + timeout + ": " + e);
        }
    }

    /**
     * Registers a callback service for the server's backward calls (RFC 8167), also while connected.
     *
     * @param program number and version, as the server calls it
     * @param service the program; it runs on a callback thread
     */
    public void registerCallbackService(OncRpcProgram program, RpcDispatchable service) {
        callbackServices.put(Objects.requireNonNull(program, "program"), Objects.requireNonNull(service, "service"));
    }

    /**
     * Unregisters a callback service; its backward calls get PROG_UNAVAIL from now on.
     *
     * @param program number and version
     */
    public void unregisterCallbackService(OncRpcProgram program) {
        callbackServices.remove(program);
    }

    /** @return the transport to make calls on */
    public RpcTransport transport() {
        return transport;
    }

    /**
     * @return what the client holds and has counted: its connection, calls in progress and waiting
     *     for a credit, its credit limit, callbacks in progress, chunk registrations, bytes copied,
     *     replies dropped and how its calls and replies travelled ({@link TransportStatistics});
     *     thread-safe
     */
    public TransportStatistics statistics() {
        Connection current = connection;
        int connections = current != null && current.state() == Connection.State.CONNECTED ? 1 : 0;
        return new TransportStatistics(connections, requester.outstandingCalls(), requester.waitingCalls(),
                requester.maxOutstandingCalls(), requester.creditLimit(), callbacksInProgress.get(), 0,
                requester.chunkBuffers(), requester.copiedBytes(), requester.droppedMessages(), 0, 0, 0,
                requester.shapes().snapshot(), Map.of(), Map.of());
    }

    /**
     * Closes the connection; pending calls fail with a CONNECTION error, and so do the replies of
     * callbacks still running. Callback threads end when their callbacks return.
     */
    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        CompletableFuture<Void> closed = requester.close();
        // Closed by a reply handler on the progress thread: the calls fail once it returns; no waiting for itself.
        if (!fabric.onProgressThread()) {
            // The failures of pending calls go through the reply thread, if any: stop it only once they are queued.
            try {
                closed.get(CLOSE_WAIT_S, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                LOG.warn("the progress thread did not close the connection within {} s", CLOSE_WAIT_S);
            }
        }
        if (replies == null) {
            replyQueue.shutdown();
        } else {
            replies.execute(replyQueue::shutdown);
            replies.shutdown();
        }
        callbackWorkers.shutdown();
    }

    private void abandon(int xid) {
        requester.abandon(xid);
    }

    /** Decodes a backward call and dispatches it to the callback services. On the progress thread; never waits. */
    private void onBackwardCall(int xid, byte[] rpcMessage) {
        // Counts until its reply is sent (CallbackTransport counts down) or it is dropped.
        callbacksInProgress.incrementAndGet();
        if (!callbackDispatcher.accept(rpcMessage, callbackTransport)) {
            callbacksInProgress.decrementAndGet();
        }
    }

    /** Answers from the progress thread are delivered as oncrpc4j's protocol filter handles them. */
    private final class Replies implements ReplyHandler {

        @Override
        public void onReply(int xid, MessageBytes rpcMessage) {
            delivery.reply(xid, rpcMessage, transport);
        }

        @Override
        public void onFailed(int xid, RdmaTransportException error) {
            delivery.fail(xid, error, transport);
        }
    }

    /** The client's {@link RpcTransport}. */
    private final class Transport extends ForwardDirection {

        @Override
        public <A> void send(Xdr xdr, A attachment, CompletionHandler<Integer, ? super A> handler) {
            MessageBytes call = XdrBytes.view(xdr);
            int xid = XdrBytes.xid(call);
            CallStepEvent.mark(xid, CallStepEvent.CALL_SUBMITTED);
            CallSend.send(call.length(), () -> requester.submit(xid, call), attachment, handler);
        }

        @Override
        public ReplyQueue getReplyQueue() {
            return replyQueue;
        }

        @Override
        Connection connection() {
            return connection;
        }

        /** @return the backward direction of the connection, on which this client only replies */
        @Override
        public RpcTransport getPeerTransport() {
            return callbackTransport;
        }
    }
}
