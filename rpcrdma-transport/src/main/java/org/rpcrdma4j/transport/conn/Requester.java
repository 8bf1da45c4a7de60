package org.rpcrdma4j.transport.conn;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.fabric.FabricStatus;
import org.rpcrdma4j.transport.CallStepEvent;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.transport.MessageBytes;
import org.rpcrdma4j.transport.MessageShape;
import org.rpcrdma4j.transport.RdmaTransportException;
import org.rpcrdma4j.transport.ReconnectPolicy;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.marshal.CallPlan;
import org.rpcrdma4j.transport.marshal.ChunkBufferPool;
import org.rpcrdma4j.transport.marshal.ChunkCounters;
import org.rpcrdma4j.transport.marshal.ChunkedCall;
import org.rpcrdma4j.transport.marshal.ReplySplicer;
import org.rpcrdma4j.xdr.ConnectPrivateData;
import org.rpcrdma4j.xdr.ErrorCode;
import org.rpcrdma4j.xdr.Proc;
import org.rpcrdma4j.xdr.RdmaError;
import org.rpcrdma4j.xdr.RpcRdmaDecodeException;
import org.rpcrdma4j.xdr.RpcRdmaHeader;
import org.rpcrdma4j.xdr.RpcRdmaHeaderFlyweight;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The requester (client) side of one connection; a fabric may carry any number of them beside a
 * responder.
 *
 * <h2>Operation</h2>
 * {@link #connect} opens a fabric connection with this side's RFC 8797 private data; the connection
 * is up when the responder accepts with its own. Each call is planned when submitted ({@link CallPlan}: inline,
 * Read chunks or a Position-zero Read chunk, and Write chunks or a Reply chunk for its reply, as the
 * program's {@link DdpPolicy} says) and sent while credits allow (RFC 8166 §3.3.1: one until the first
 * reply, then the grant); the others wait in order. Each answer (a reply or an RDMA_ERROR) returns
 * its credit and carries the new grant; a reply that used chunks is rebuilt by {@link ReplySplicer}.
 * Closing fails every call sent or waiting with {@link RdmaTransportException.Scope#CONNECTION}.
 *
 * <h2>A lost connection</h2>
 * When the connection ends other than by {@link #close} (the responder closed it, a work request
 * failed, the device went away), the {@link ReconnectPolicy} decides. With {@link ReconnectPolicy#NEVER}
 * every call fails, as on close. Otherwise, as the Linux client does, the calls sent and not answered
 * go back to the front of the calls waiting, in the order they were sent, their chunk memory
 * deregistered; a new connection is opened while calls wait (at once, then with the policy's backoff
 * while attempts fail) and, once it is up, they are sent again with their XIDs, planned anew for its
 * thresholds, starting again from one credit (RFC 8166 §3.3.1: credits are per connection). Calls
 * submitted meanwhile wait with them. Whether a call that reached the responder twice runs twice is
 * the service's duplicate request handling, as with any RPC transport. Calls abandoned before the
 * loss are forgotten with it, their credits gone with the connection.
 *
 * <h2>Back-pressure</h2>
 * At most {@link TransportConfig#requesterCredits} calls wait for a credit, as many as may be
 * outstanding. A caller that finds the wait full waits itself in {@link #submit} until a waiting call
 * is sent, fails or is abandoned, or the connection closes, as a Linux RPC task sleeps on the
 * transport's backlog; the wait is never unbounded memory. On the progress thread (a reply handler
 * that calls again) {@link #submit} cannot wait, since only that thread frees room: it fails the call
 * at once with {@link RdmaTransportException.Scope#CALL}.
 *
 * <p>A call that timed out above this layer is {@linkplain #abandon abandoned}: its chunk memory is
 * deregistered at once, as the Linux client invalidates the memory of an RPC that exits without its
 * reply, but it keeps its credit until its answer comes, since the responder still counts it
 * (RFC 8166 §3.3.1). The answer is then discarded. A responder that still moves the call's chunks
 * finds the memory gone and, as svcrdma does, closes the connection.
 *
 * <h2>Backward direction (RFC 8167)</h2>
 * This side is also the responder of backward calls: a received RDMA_MSG without chunks whose RPC
 * message is a CALL ({@link RpcDirection}) goes to the {@link BackwardCallHandler} and touches no
 * forward credit (§4.1). Each is answered by {@link #backwardReply}, inline only (§4.4, §4.6), granting
 * the configured backward credits; a reply over the inline threshold is not sent and the responder
 * gets RDMA_ERROR / ERR_CHUNK for its call instead, as a forward responder answers (RFC 8166 §4.5).
 * A reply goes only on the connection its call came on: the reply to a call of a connection lost
 * since fails unsent.
 *
 * <h2>Buffer management</h2>
 * One receive buffer of the inline receive size per credit requested is posted for the responder's
 * replies before the connection is requested, and one per backward credit granted for backward calls
 * (RFC 8167). Received buffers are handled by the connection's {@code ConnectionEvents}: the reply's
 * inline part is copied out and the buffer posted again. Call buffers are
 * allocated per send and belong to the fabric until the send completes. Chunk memory is registered
 * when a call is sent (not while it waits for a credit) and deregistered when its answer has been
 * used, when its send fails, when the call is abandoned or when the connection closes
 * ({@link ChunkedCall}). The memory behind a call's Write and Reply chunks is leased from a pool of
 * this requester's ({@link ChunkBufferPool}) and goes back to it after its deregistration: at once when
 * nothing will read it, else once the reader of the reply has decoded it. An answer is read only once
 * its deregistration's continuation runs: a fabric may copy the responder's bytes into the memory
 * off its progress turn, and the answer then goes to the handler in a later command.
 *
 * <h2>Threads</h2>
 * Everything runs on the fabric's progress thread except {@link #connect}, {@link #submit},
 * {@link #backwardReply}, {@link #close} and the counters, which are thread-safe. A delay before a
 * reconnection is kept by a timer thread shared by every requester, which only hands the attempt to
 * the progress thread.
 */
public final class Requester {

    private static final Logger LOG = LoggerFactory.getLogger(Requester.class);

    private final Fabric fabric;
    private final TransportConfig config;
    private final ReconnectPolicy reconnect;
    /** Per connection: a new connection starts again from one credit. */
    private RequesterCredits credits;
    private final ReplyHandler handler;
    private final BackwardCallHandler backwardCalls;
    private final DdpPolicy policy;
    private final ArrayDeque<CallPlan> waiting = new ArrayDeque<>();
    /** Guards {@link #admitted}; callers wait on it for room. */
    private final Object room = new Object();
    /** Calls submitted and not yet sent, failed or dropped: those in {@link #waiting} or on their way there. */
    private int admitted;
    /** In the order sent, which is the order they are sent again after a lost connection. */
    private final Map<Integer, ChunkedCall> outstanding = new LinkedHashMap<>();
    /** Sent calls given up on: each still holds a credit, so there are never more than the grant. */
    private final Set<Integer> abandoned = new HashSet<>();
    /** Backward calls received on the current connection and not yet answered: a reply goes only there. */
    private final Set<Integer> backwardCallsOpen = new HashSet<>();
    private final CompletableFuture<Connection> connected = new CompletableFuture<>();
    /** The responder's address, set by {@link #connect}. */
    private FabricAddress responder;
    /** The current connection: up, being set up, or closed while calls wait for the next. */
    private volatile Connection connection;
    /** The thresholds of the last connection that came up: calls submitted are planned for them. */
    private volatile InlineThresholds thresholds;
    /** Set once no call will ever be sent again: closed, or the connection lost without reconnecting. */
    private volatile boolean shut;
    /** Whether a reconnection is scheduled and has not run yet. */
    private boolean attemptScheduled;
    /** The delay before the next reconnection: 0 after a connection that was up. */
    private long backoffNanos;
    private volatile int connects;
    private volatile int outstandingCount;
    private volatile int waitingCount;
    private volatile int maxOutstanding;
    private volatile int creditLimit = 1;
    private volatile int chunkBuffers;
    private final ChunkCounters shapes = new ChunkCounters();
    private final LongAdder copied = new LongAdder();
    private final LongAdder dropped = new LongAdder();
    /** The memory behind the calls' Write and Reply chunks, reused from call to call. */
    private final ChunkBufferPool pool = new ChunkBufferPool(ChunkBufferPool.DEFAULT_MAX_IDLE_BYTES);

    /**
     * @param fabric    the fabric to connect on
     * @param config    the inline sizes, the segment size and the credits to request
     * @param policy    the DDP policy of the calls sent ({@link DdpPolicy#NONE} for none)
     * @param reconnect what to do when the connection is lost after it came up
     * @param handler   gets the answers
     * @param backwardCalls gets the backward calls (RFC 8167)
     */
    public Requester(Fabric fabric, TransportConfig config, DdpPolicy policy, ReconnectPolicy reconnect,
                     ReplyHandler handler, BackwardCallHandler backwardCalls) {
        this.fabric = Objects.requireNonNull(fabric, "fabric");
        this.config = Objects.requireNonNull(config, "config");
        this.policy = Objects.requireNonNull(policy, "policy");
        this.reconnect = Objects.requireNonNull(reconnect, "reconnect");
        this.handler = Objects.requireNonNull(handler, "handler");
        this.backwardCalls = Objects.requireNonNull(backwardCalls, "backwardCalls");
        this.credits = new RequesterCredits(config.requesterCredits());
    }

    /**
     * Opens the connection. Thread-safe; call once. Failing here is final: only a connection that
     * came up is reconnected.
     *
     * @param address the responder's address
     * @return completes with the connection when the responder accepts, or exceptionally if the
     *     connection ends first
     */
    public CompletableFuture<Connection> connect(FabricAddress address) {
        Objects.requireNonNull(address, "address");
        fabric.execute(() -> {
            responder = address;
            RdmaTransportException refused = open();
            if (refused != null) {
                shut = true;
                connected.completeExceptionally(refused);
            }
        });
        return connected;
    }

    /**
     * Opens a connection to the responder, the current one from now on. Progress thread.
     *
     * @return {@code null}, or why the fabric cannot open it now
     */
    private RdmaTransportException open() {
        Events events = new Events();
        List<ByteBuffer> receives = events.receiveBuffers(
                credits.requested() + config.backwardResponderCredits(), config.inlineReceiveSize());
        try {
            connection = new Connection(fabric.connect(responder, config.privateData(), receives, events),
                    fabric.messageBuffers());
        } catch (IllegalStateException e) {
            // A closed fabric, or one with every connection id in use: nothing was posted.
            receives.forEach(fabric.messageBuffers()::release);
            return new RdmaTransportException(RdmaTransportException.Scope.CONNECTION,
                    "cannot connect to " + responder + ": " + e.getMessage(), e);
        }
        events.connection = connection;
        connects++;
        return null;
    }

    /**
     * Sends a call, now or when a credit frees, first waiting for room among the calls that wait for
     * a credit when there is none (see Back-pressure above). Thread-safe. Its answer goes to the
     * {@link ReplyHandler}. While a lost connection is replaced, the call waits for the next one.
     *
     * @param xid        the call's XID
     * @param rpcMessage the whole RPC call message; its bytes must not change until the call is
     *                   answered or fails, since the responder reads its Read chunks in place
     * @throws RdmaTransportException CALL if the call cannot be marshalled (see {@link CallPlan#of}),
     *                                needs a chunk larger than {@link TransportConfig#maxMessageSize},
     *                                or finds no room on the progress thread or when interrupted;
     *                                CONNECTION if the connection never came up, or is closed for good
     */
    public void submit(int xid, MessageBytes rpcMessage) throws RdmaTransportException {
        Connection current = connection;
        InlineThresholds inline = thresholds;
        if (shut || inline == null) {
            throw closed(current, xid);
        }
        CallPlan plan = CallPlan.of(xid, rpcMessage, policy, inline.send(), inline.receive(), config.maxSegmentSize());
        if (plan.largestChunk() > config.maxMessageSize()) {
            // A responder with this configuration would refuse the header (too many segments) or the call.
            throw new RdmaTransportException(RdmaTransportException.Scope.CALL, "xid 0x" + Integer.toHexString(xid)
                    + " needs a chunk of " + plan.largestChunk() + " bytes, more than the largest I/O of "
                    + config.maxMessageSize() + " bytes (TransportConfig.maxMessageSize)");
        }
        admit(xid);
        CallStepEvent.mark(xid, CallStepEvent.CALL_PLANNED);
        boolean queued = Connection.execute(fabric, () -> {
            if (shut) {
                leave(1);
                handler.onFailed(xid, closed(connection, xid));
                return;
            }
            waiting.add(plan);
            if (connection.state() == Connection.State.CLOSED) {
                scheduleReconnect();
            } else {
                pump();
            }
        });
        if (!queued) {
            leave(1);
            throw closed(current, xid);
        }
    }

    /** Takes room for a call among those waiting for a credit, waiting for it off the progress thread. */
    private void admit(int xid) throws RdmaTransportException {
        synchronized (room) {
            while (admitted >= config.requesterCredits()) {
                if (shut) {
                    throw closed(connection, xid);
                }
                if (fabric.onProgressThread()) {
                    throw new RdmaTransportException(RdmaTransportException.Scope.CALL, "xid 0x"
                            + Integer.toHexString(xid) + ": " + admitted + " calls already wait for a credit, the"
                            + " most allowed, and the progress thread cannot wait for room");
                }
                try {
                    room.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new RdmaTransportException(RdmaTransportException.Scope.CALL, "xid 0x"
                            + Integer.toHexString(xid) + ": interrupted while waiting for room to send", e);
                }
            }
            admitted++;
        }
    }

    /** Gives back the room of calls sent, failed or dropped, waking whoever waits for it. */
    private void leave(int calls) {
        if (calls > 0) {
            synchronized (room) {
                admitted -= calls;
                room.notifyAll();
            }
        }
    }

    /**
     * Gives up on a call whose caller no longer waits for it. Thread-safe. A call still waiting for a
     * credit is dropped unsent; a call sent has its chunk memory deregistered now and its answer, when
     * it comes, returns the credit and is discarded. Nothing for an XID that is not pending.
     *
     * @param xid the call's XID
     */
    public void abandon(int xid) {
        boolean queued = Connection.execute(fabric, () -> {
            ChunkedCall call = outstanding.remove(xid);
            if (call != null) {
                // Its answer, if it comes, is discarded unread: the memory may serve another call.
                discard(call);
                abandoned.add(xid);
            } else if (waiting.removeIf(plan -> plan.xid() == xid)) {
                leave(1);
            }
            outstandingCount = outstanding.size();
            waitingCount = waiting.size();
        });
        if (!queued) {
            LOG.debug("progress thread already stopped: closing released xid 0x{}", Integer.toHexString(xid));
        }
    }

    /**
     * Answers a backward call (RFC 8167): inline, granting the configured backward credits.
     * Thread-safe.
     *
     * @param xid        the backward call's XID
     * @param rpcMessage the whole RPC reply message, owned by the requester from now on
     * @param done       called with {@code null} once sent, or with the error, on the progress thread:
     *                   CALL if the reply is over the inline threshold (the responder is answered
     *                   ERR_CHUNK instead), CONNECTION if the connection is closed
     */
    public void backwardReply(int xid, byte[] rpcMessage, Consumer<RdmaTransportException> done) {
        ByteBuffer message = InlineMessage.msg(xid, config.backwardResponderCredits(), rpcMessage);
        boolean queued = Connection.execute(fabric, () -> {
            Connection current = connection;
            if (current.state() != Connection.State.CONNECTED) {
                done.accept(closed(current, xid));
            } else if (!backwardCallsOpen.remove(xid)) {
                // Its call came on a connection lost since: the responder that sent it is gone with it.
                done.accept(new RdmaTransportException(RdmaTransportException.Scope.CONNECTION, "backward reply to"
                        + " xid 0x" + Integer.toHexString(xid)
                        + " not sent: its call came on a connection since lost"));
            } else if (message.capacity() > current.thresholds().send()) {
                current.send(InlineMessage.error(RpcRdmaHeader.error(xid,
                        RpcRdmaHeader.VERSION, config.backwardResponderCredits(), RdmaError.errChunk())), null);
                done.accept(new RdmaTransportException(RdmaTransportException.Scope.CALL, "backward reply to xid 0x"
                        + Integer.toHexString(xid) + " of " + rpcMessage.length + " bytes is over the "
                        + current.thresholds().send() + "-byte inline threshold; backward messages are inline"
                        + " only (RFC 8167); answered ERR_CHUNK"));
            } else {
                current.send(message, done);
            }
        });
        if (!queued) {
            done.accept(closed(connection, xid));
        }
    }

    /**
     * Closes the connection, telling the responder, and fails every pending call. Thread-safe.
     *
     * @return completes once every pending call has been handed its failure, so that whoever delivers
     *     answers may stop after it; at once if the progress thread has stopped
     */
    public CompletableFuture<Void> close() {
        shut = true;
        CompletableFuture<Void> closed = new CompletableFuture<>();
        boolean queued = Connection.execute(fabric, () -> {
            Connection current = connection;
            shutDown("closed by the requester");
            if (current != null) {
                current.fabricConnection().close();
            }
            closed.complete(null);
        });
        if (!queued) {
            LOG.debug("progress thread already stopped");
            closed.complete(null);
        }
        return closed;
    }

    /** @return the current connection, {@code null} before {@link #connect} has run; thread-safe */
    public Connection connection() {
        return connection;
    }

    /** @return connections opened so far, the first included; thread-safe */
    public int connects() {
        return connects;
    }

    /** @return how this requester's calls and their replies travelled */
    public ChunkCounters shapes() {
        return shapes;
    }

    /**
     * @return bytes this side of the transport copied, counted where it copies: the inline part of
     *     each call, a Read chunk's item that lay in more than one buffer, the inline part of each
     *     reply and backward call, and the short results a decoder kept out of the reply memory
     *     ({@link ChunkBufferPool#copiedOutBytes}); the fabric's moves not counted
     */
    public long copiedBytes() {
        return copied.sum() + pool.copiedOutBytes();
    }

    /** @return calls sent and not yet answered */
    public int outstandingCalls() {
        return outstandingCount;
    }

    /** @return calls waiting for a credit */
    public int waitingCalls() {
        return waitingCount;
    }

    /** @return the most calls ever outstanding at once */
    public int maxOutstandingCalls() {
        return maxOutstanding;
    }

    /** @return the pool the memory behind the calls' Write and Reply chunks comes from */
    public ChunkBufferPool chunkBufferPool() {
        return pool;
    }

    /** @return chunk buffers registered for calls not yet answered; 0 when nothing leaks */
    public int chunkBuffers() {
        return chunkBuffers;
    }

    /** @return how many calls may be outstanding now: 1 until the first answer, then the grant */
    public int creditLimit() {
        return creditLimit;
    }

    /** @return received messages dropped without an answer (too long, or with a bad header) */
    public long droppedMessages() {
        return dropped.sum();
    }

    /** One connection's events: answers, backward calls and its end. Progress thread. */
    private final class Events extends ConnectionEvents {

        Events() {
            super(config.decodeLimits(), fabric.messageBuffers(), copied, dropped);
        }

        /** @return whether this is the current connection's, not one replaced since */
        private boolean current() {
            return connection == Requester.this.connection;
        }

        @Override
        public void onEstablished(ConnectPrivateData peerData) {
            if (!current() || connection.state() != Connection.State.CONNECTING) {
                return;
            }
            connection.up(InlineThresholds.of(config.privateData(), peerData));
            thresholds = connection.thresholds();
            backoffNanos = 0;
            if (connected.complete(connection)) {
                LOG.debug("{} up with thresholds {}", connection, connection.thresholds());
            } else {
                LOG.info("{} up again with thresholds {}; {} calls to send", connection, connection.thresholds(),
                        waiting.size());
            }
            pump();
        }

        @Override
        public void onDisconnected(FabricStatus status, String detail) {
            if (!current()) {
                return;
            }
            String reason = status == FabricStatus.REFUSED ? "refused by the responder"
                    : status == FabricStatus.CLOSED ? "closed by the responder" : status + ": " + detail;
            if (shut || !reconnect.reconnects() || !connected.isDone()) {
                shutDown(reason);
            } else {
                keepForNextConnection(reason);
            }
        }

        @Override
        void afterReceive() {
            // The answer returned a credit and its receive is posted again: a waiting call may go.
            pump();
        }

        @Override
        void onBadHeader(RpcRdmaDecodeException e) {
            // Only a responder answers with RDMA_ERROR (RFC 8166 §4.5); the call it was for times out.
            drop();
            LOG.warn("dropped a bad reply: {}", e.getMessage());
        }

        @Override
        void onMessage(ByteBuffer buffer) {
            if (!current()) {
                drop();
                return;
            }
            int xid = header.xid();
            if (RpcDirection.msgType(header, buffer) == RpcDirection.CALL) {
                if (backwardCalls.onBackwardCall(xid, payload(buffer))) {
                    backwardCallsOpen.add(xid);
                }
                return;
            }
            ChunkedCall call = outstanding.remove(xid);
            if (call == null && abandoned.remove(xid)) {
                credits.onAnswered(header.credits());
                creditLimit = credits.limit();
                LOG.debug("discarded the answer to abandoned xid 0x{}", Integer.toHexString(xid));
                return;
            }
            if (call == null) {
                drop();
                LOG.debug("dropped an answer to xid 0x{}: no such call outstanding", Integer.toHexString(xid));
                return;
            }
            credits.onAnswered(header.credits());
            creditLimit = credits.limit();
            outstandingCount = outstanding.size();
            ReplySplicer.Echo echo = null;
            RdmaTransportException failure = null;
            try {
                if (header.proc() == Proc.RDMA_ERROR) {
                    failure = rdmaError(header);
                } else if (header.readSegmentCount() > 0) {
                    failure = new RdmaTransportException(RdmaTransportException.Scope.CALL, "reply to xid 0x"
                            + Integer.toHexString(xid) + " carries a Read list (RFC 8166 §3.4.5: replies have none)");
                } else {
                    // Read now: the receive buffer is posted again before the chunk memory may be read.
                    echo = ReplySplicer.echo(call, header, buffer, copied);
                }
            } catch (RdmaTransportException e) {
                failure = e;
            }
            ReplySplicer.Echo echoed = echo;
            RdmaTransportException failed = failure;
            MessageShape shape = failure == null ? ChunkCounters.replyShape(header) : null;
            // The reply is read once what the responder wrote is in the call's buffers, which may be
            // after this returns (Fabric.deregister with a continuation), and whoever gets the answer
            // finds the call's memory released. A failed answer is not read.
            release(call, failure == null ? call.replyBytesWritten(header) : 0,
                    () -> deliver(xid, call, echoed, shape, failed));
        }

        /** Hands the answer to a call whose chunk memory is released to the handler. Progress thread. */
        private void deliver(int xid, ChunkedCall call, ReplySplicer.Echo echo, MessageShape shape,
                             RdmaTransportException failure) {
            MessageBytes reply = null;
            RdmaTransportException error = failure;
            if (error == null) {
                try {
                    reply = ReplySplicer.reply(call, echo);
                    shapes.onReply(shape);
                    CallStepEvent.mark(xid, CallStepEvent.REPLY_RECEIVED);
                } catch (RdmaTransportException e) {
                    error = e;
                }
            }
            if (error != null) {
                // Nothing reads the reply memory: it may serve the next call.
                call.recycle();
                handler.onFailed(xid, error);
            } else {
                // Marked before: the hand-off wakes the caller, who may be done before it returns.
                CallStepEvent.mark(xid, CallStepEvent.REPLY_DELIVERED);
                // The reply holds views of the chunk memory: its reader gives the memory back once decoded.
                handler.onReply(xid, reply, call.replyLease());
            }
        }
    }

    private void release(ChunkedCall call, long readable, Runnable then) {
        // Counted first: the continuation may hand the answer over before release returns.
        chunkBuffers -= call.buffers();
        call.release(fabric, readable, then);
    }

    /** Releases a call whose reply memory nothing will read, and gives that memory back to the pool. */
    private void discard(ChunkedCall call) {
        release(call, 0, call::recycle);
    }

    private static RdmaTransportException rdmaError(RpcRdmaHeaderFlyweight header) {
        int xid = header.xid();
        String detail = header.errorCode() == ErrorCode.ERR_VERS
                ? "ERR_VERS (the responder supports versions " + Integer.toUnsignedLong(header.errorLow()) + " to "
                        + Integer.toUnsignedLong(header.errorHigh()) + ")"
                : "ERR_CHUNK (the responder could not use the call's header or chunks, or could not send the reply)";
        return new RdmaTransportException(RdmaTransportException.Scope.CALL, "xid 0x" + Integer.toHexString(xid)
                + ": the responder answered RDMA_ERROR " + detail);
    }

    private void pump() {
        Connection current = connection;
        while (current.state() == Connection.State.CONNECTED && credits.canSend() && !waiting.isEmpty()) {
            CallPlan waited = waiting.poll();
            leave(1);
            CallPlan plan;
            try {
                // Planned while another connection was up, or before this one agreed its thresholds.
                plan = waited.forThresholds(current.thresholds().send(), current.thresholds().receive());
            } catch (RdmaTransportException e) {
                handler.onFailed(waited.xid(), e);
                continue;
            }
            ChunkedCall call = plan.register(fabric, current.fabricConnection(), credits.requested(), copied, pool);
            if (call == null) {
                handler.onFailed(plan.xid(), new RdmaTransportException(RdmaTransportException.Scope.CALL, "xid 0x"
                        + Integer.toHexString(plan.xid()) + ": the fabric could not register the chunk memory"));
                continue;
            }
            credits.onSent();
            shapes.onSent(plan);
            outstanding.put(plan.xid(), call);
            chunkBuffers += call.buffers();
            current.send(call.message(), error -> {
                // A send that fails with its connection is the connection's end to handle: it sends the
                // call again on the next connection, or fails it.
                if (error == null || current != connection || error.scope() == RdmaTransportException.Scope.CONNECTION
                        && reconnect.reconnects() && !shut) {
                    return;
                }
                if (outstanding.remove(plan.xid(), call)) {
                    credits.onUnanswered();
                    discard(call);
                    handler.onFailed(plan.xid(), error);
                } else if (abandoned.remove(plan.xid())) {
                    credits.onUnanswered();
                }
            });
            CallStepEvent.mark(plan.xid(), CallStepEvent.CALL_SENT);
        }
        outstandingCount = outstanding.size();
        waitingCount = waiting.size();
        maxOutstanding = Math.max(maxOutstanding, outstandingCount);
    }

    /**
     * Keeps the calls of a lost connection for the next: those sent go back to the front of the
     * waiting ones, in the order sent, their chunk memory released. Progress thread.
     */
    private void keepForNextConnection(String reason) {
        Connection lost = connection;
        lost.close(reason);
        List<CallPlan> again = new ArrayList<>(outstanding.size());
        for (ChunkedCall call : outstanding.values()) {
            // Deregistered before the memory goes back: the lost connection's peer can no longer write it.
            discard(call);
            again.add(call.plan());
        }
        outstanding.clear();
        abandoned.clear();
        backwardCallsOpen.clear();
        for (int i = again.size() - 1; i >= 0; i--) {
            waiting.addFirst(again.get(i));
        }
        synchronized (room) {
            // Waiting again: pump gives their room back as it sends them.
            admitted += again.size();
        }
        credits = new RequesterCredits(config.requesterCredits());
        creditLimit = credits.limit();
        outstandingCount = 0;
        waitingCount = waiting.size();
        LOG.info("{} lost ({}); {} calls wait for the next connection, {} of them to be sent again", lost, reason,
                waiting.size(), again.size());
        scheduleReconnect();
    }

    /**
     * Schedules the next connection attempt if calls wait for one and none is scheduled: at once
     * after a connection that was up, then with the policy's backoff. Progress thread.
     */
    private void scheduleReconnect() {
        if (attemptScheduled || shut || waiting.isEmpty() || connection.state() != Connection.State.CLOSED) {
            return;
        }
        attemptScheduled = true;
        long delay = backoffNanos;
        backoffNanos = reconnect.nextDelayNanos(delay);
        Runnable attempt = () -> {
            if (!Connection.execute(fabric, this::reconnect)) {
                LOG.debug("the progress thread stopped before reconnecting to {}", responder);
            }
        };
        if (delay == 0) {
            attempt.run();
        } else {
            LOG.info("reconnecting to {} in {} ms", responder, TimeUnit.NANOSECONDS.toMillis(delay));
            ReconnectTimer.TIMER.schedule(attempt, delay, TimeUnit.NANOSECONDS);
        }
    }

    /** A scheduled attempt: opens a new connection if calls still wait for one. Progress thread. */
    private void reconnect() {
        attemptScheduled = false;
        if (shut || waiting.isEmpty() || connection.state() != Connection.State.CLOSED) {
            return;
        }
        RdmaTransportException refused = open();
        if (refused != null) {
            // The fabric cannot connect now (closed, or out of connection ids): the waiting calls
            // fail with that rather than wait for what may never come; the next call tries again.
            failWaiting(refused);
        }
    }

    /** Ends the requester: every call pending fails, and none is sent again. Progress thread. */
    private void shutDown(String reason) {
        shut = true;
        Connection current = connection;
        if (current != null) {
            current.close(reason);
        }
        connected.completeExceptionally(closed(current, 0));
        List<Integer> failed = new ArrayList<>(outstanding.keySet());
        outstanding.values().forEach(this::discard);
        outstanding.clear();
        abandoned.clear();
        backwardCallsOpen.clear();
        outstandingCount = 0;
        for (int xid : failed) {
            handler.onFailed(xid, closed(current, xid));
        }
        failWaiting(null);
    }

    /** Fails the calls waiting for a credit or a connection, with an error of their own or the one given. */
    private void failWaiting(RdmaTransportException error) {
        List<CallPlan> failed = new ArrayList<>(waiting);
        leave(waiting.size());
        waiting.clear();
        waitingCount = 0;
        synchronized (room) {
            // Callers waiting for room find the requester shut, or room.
            room.notifyAll();
        }
        for (CallPlan plan : failed) {
            handler.onFailed(plan.xid(), error != null ? error : closed(connection, plan.xid()));
        }
    }

    private static RdmaTransportException closed(Connection connection, int xid) {
        String state = connection == null ? "not connected"
                : connection.state() == Connection.State.CLOSED ? connection + " closed: " + connection.closeReason()
                : connection + " is not up";
        return new RdmaTransportException(RdmaTransportException.Scope.CONNECTION,
                "call xid 0x" + Integer.toHexString(xid) + " failed: " + state);
    }

    /** The timer of reconnection delays, one daemon thread for every requester, made on first use. */
    private static final class ReconnectTimer {

        static final ScheduledExecutorService TIMER = timer();

        private static ScheduledExecutorService timer() {
            ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, task -> {
                Thread thread = new Thread(task, "rdma-rpc-reconnect");
                thread.setDaemon(true);
                return thread;
            });
            timer.setRemoveOnCancelPolicy(true);
            return timer;
        }
    }
}
