package org.rpcrdma4j.transport.oncrpc;

import java.io.IOException;
import java.nio.ByteBuffer;
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
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.fabric.MessageBuffers;
import org.rpcrdma4j.transport.CallStepEvent;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.transport.MessageBytes;
import org.rpcrdma4j.transport.RdmaTransportException;
import org.rpcrdma4j.transport.ReconnectPolicy;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.TransportStatistics;
import org.rpcrdma4j.transport.conn.Connection;
import org.rpcrdma4j.transport.conn.ReplyHandler;
import org.rpcrdma4j.transport.conn.Requester;
import org.rpcrdma4j.transport.marshal.ChunkBufferPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An RPC-over-RDMA client for oncrpc4j client code, made by {@link #builder}: {@link #transport()} is the
 * {@link RpcTransport} for {@code new RpcCall(prog, vers, auth, transport)}, so existing clients run
 * unchanged. Replies are matched by XID through oncrpc4j's {@link ReplyQueue}, which also times
 * calls out with the timeouts the caller gives {@code RpcCall.call} (with oncrpc4j's semantics, but
 * without a timer task per call: one timer checks the deadlines, up to 10 ms late); the chunk memory
 * of a call that times out is deregistered at once ({@link Requester#abandon}).
 *
 * <p>When its connection is lost after it came up, the client connects again and sends the calls
 * still waiting once more, with their XIDs, as the Linux client does; {@link ReconnectPolicy} says
 * when, and {@link ReconnectPolicy#NEVER} makes a lost connection fail every call instead. The first
 * connection is not retried: {@link Builder#connect} fails if the server does not accept it.
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

    private RdmaRpcClient(Builder builder) {
        this.fabric = builder.fabric;
        this.replies = builder.ioStrategy != IoStrategy.WORKER_THREAD ? null
                : Executors.newSingleThreadExecutor(DaemonThreads.named("rdma-rpc-client-replies"));
        this.delivery = new ReplyDelivery(replyQueue, replies == null ? Runnable::run : replies);
        this.requester = new Requester(fabric, builder.config, builder.policy, builder.reconnect, new Replies(),
                this::onBackwardCall);
        this.callbackWorkers = Executors.newFixedThreadPool(builder.config.backwardResponderCredits(),
                DaemonThreads.named("rdma-rpc-client-callbacks"));
        this.callbackDispatcher = new CallDispatcher(callbackServices, callbackWorkers, MessageBuffers.HEAP);
        this.callbackTransport = new CallbackTransport(requester, transport, callbacksInProgress::decrementAndGet);
    }

    /**
     * Starts building a client: {@code RdmaRpcClient.builder(fabric, server).withDdpPolicy(...).connect()}.
     *
     * @param fabric the fabric to connect on; the client does not own it
     * @param server the server's fabric address
     * @return a builder with the defaults: {@link TransportConfig#DEFAULT}, {@link DdpPolicy#NONE}, a
     *     connect timeout of 30 s, {@link IoStrategy#SAME_THREAD} and {@link ReconnectPolicy#LINUX}
     */
    public static Builder builder(Fabric fabric, FabricAddress server) {
        return new Builder(fabric, server);
    }

    /** The settings of a client, in the manner of {@link RdmaRpcSvcBuilder}; {@link #connect} makes one. */
    public static final class Builder {

        private final Fabric fabric;
        private final FabricAddress server;
        private TransportConfig config = TransportConfig.DEFAULT;
        private DdpPolicy policy = DdpPolicy.NONE;
        private Duration connectTimeout = Duration.ofSeconds(30);
        private IoStrategy ioStrategy = IoStrategy.SAME_THREAD;
        private ReconnectPolicy reconnect = ReconnectPolicy.LINUX;

        private Builder(Fabric fabric, FabricAddress server) {
            this.fabric = Objects.requireNonNull(fabric, "fabric");
            this.server = Objects.requireNonNull(server, "server");
        }

        /**
         * @param transportConfig inline sizes, segment size and the credits to request
         * @return this builder
         */
        public Builder withConfig(TransportConfig transportConfig) {
            this.config = Objects.requireNonNull(transportConfig, "config");
            return this;
        }

        /**
         * @param ddpPolicy the DDP policy of the program called: which call items go in Read chunks,
         *                  which results get Write chunks and when a Reply chunk is needed
         * @return this builder
         */
        public Builder withDdpPolicy(DdpPolicy ddpPolicy) {
            this.policy = Objects.requireNonNull(ddpPolicy, "ddpPolicy");
            return this;
        }

        /**
         * @param timeout how long {@link #connect} waits for the server's ACCEPT
         * @return this builder
         */
        public Builder withConnectTimeout(Duration timeout) {
            this.connectTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /**
         * @param strategy where reply handlers run: on a reply thread of the client's for
         *                 {@link IoStrategy#WORKER_THREAD}, otherwise on the progress thread that received
         *                 the reply (for {@link IoStrategy#LEADER_FOLLOWER} too: that thread is the leader)
         * @return this builder
         */
        public Builder withIoStrategy(IoStrategy strategy) {
            this.ioStrategy = Objects.requireNonNull(strategy, "strategy");
            return this;
        }

        /**
         * @param policy what the client does when its connection is lost after it came up
         * @return this builder
         */
        public Builder withReconnectPolicy(ReconnectPolicy policy) {
            this.reconnect = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * Connects and waits until the private data is exchanged.
         *
         * @return the connected client
         * @throws IOException if the server did not accept in time or closed the connection
         */
        public RdmaRpcClient connect() throws IOException {
            RdmaRpcClient client = new RdmaRpcClient(this);
            try {
                client.requester.connect(server).get(connectTimeout.toNanos(), TimeUnit.NANOSECONDS);
                return client;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                client.close();
                throw new IOException("interrupted while connecting to " + server, e);
            } catch (ExecutionException | TimeoutException e) {
                client.close();
                throw new RdmaTransportException(RdmaTransportException.Scope.CONNECTION,
                        "could not connect to " + server + " within " + connectTimeout + ": " + e);
            }
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
        Connection current = requester.connection();
        int connections = current != null && current.state() == Connection.State.CONNECTED ? 1 : 0;
        return new TransportStatistics(connections, requester.outstandingCalls(), requester.waitingCalls(),
                requester.maxOutstandingCalls(), requester.creditLimit(), callbacksInProgress.get(), 0,
                requester.chunkBuffers(), requester.copiedBytes(), requester.droppedMessages(), 0, 0, 0,
                requester.shapes().snapshot());
    }

    /**
     * @return connections opened to the server so far, the first included: more than one after the
     *     client reconnected ({@link ReconnectPolicy}); thread-safe
     */
    public int connects() {
        return requester.connects();
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

    /** @return the pool of the memory behind the calls' Write and Reply chunks, for tests */
    ChunkBufferPool chunkBufferPool() {
        return requester.chunkBufferPool();
    }

    private void abandon(int xid) {
        requester.abandon(xid);
    }

    /** Decodes a backward call and dispatches it to the callback services. On the progress thread; never waits. */
    private boolean onBackwardCall(int xid, byte[] rpcMessage) {
        // Counts until its reply is sent (CallbackTransport counts down) or it is dropped.
        callbacksInProgress.incrementAndGet();
        if (!callbackDispatcher.accept(ByteBuffer.wrap(rpcMessage), null, callbackTransport)) {
            callbacksInProgress.decrementAndGet();
            return false;
        }
        return true;
    }

    /** Answers from the progress thread are delivered as oncrpc4j's protocol filter handles them. */
    private final class Replies implements ReplyHandler {

        @Override
        public void onReply(int xid, MessageBytes rpcMessage, ChunkBufferPool.Lease chunkMemory) {
            delivery.reply(xid, rpcMessage, chunkMemory, transport);
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
            return requester.connection();
        }

        /** @return the backward direction of the connection, on which this client only replies */
        @Override
        public RpcTransport getPeerTransport() {
            return callbackTransport;
        }
    }
}
