package org.rpcrdma4j.transport.conn;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.rpcrdma4j.transport.ConnectionListener;
import org.rpcrdma4j.transport.Fabric;
import org.rpcrdma4j.transport.FabricStatus;
import org.rpcrdma4j.transport.MemoryAccess;
import org.rpcrdma4j.transport.MessageBytes;
import org.rpcrdma4j.transport.RdmaTransportException;
import org.rpcrdma4j.transport.Registration;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.marshal.ProvidedChunks;
import org.rpcrdma4j.transport.marshal.ReplyPlan;
import org.rpcrdma4j.transport.rw.RdmaBatch;
import org.rpcrdma4j.transport.rw.ReadChunkPull;
import org.rpcrdma4j.xdr.ConnectPrivateData;
import org.rpcrdma4j.xdr.HeaderDecoder;
import org.rpcrdma4j.xdr.Proc;
import org.rpcrdma4j.xdr.RdmaError;
import org.rpcrdma4j.xdr.ReadChunk;
import org.rpcrdma4j.xdr.RpcRdmaDecodeException;
import org.rpcrdma4j.xdr.RpcRdmaHeader;
import org.rpcrdma4j.xdr.RpcRdmaHeaderFlyweight;
import org.rpcrdma4j.xdr.XdrItem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The responder (server) side of every connection a fabric accepts.
 *
 * <h2>Operation</h2>
 * Accepts connection requests up to the configured number, answering with its RFC 8797 private
 * data, and keeps the table of its connections, each with its own listener; decodes
 * and validates every data message and answers a bad one as Linux svcrdma does
 * ({@code svc_rdma_xdr_decode_req}): ERR_VERS, ERR_CHUNK or a silent drop, as the decoder's exception
 * names; at {@link TransportConfig#PROTOCOL_ERRORS_PER_CONNECTION} such messages on one connection
 * ({@link #protocolError}) it closes the connection, where Linux would go on answering. A call
 * with Read chunks (Position-zero included) is first rebuilt by RDMA Read
 * ({@link ReadChunkPull}; RFC 8166 §3.4.5, §3.5.4); the reads complete on the progress thread, which
 * never waits for them. A failed RDMA Read closes the connection, as svcrdma drops a connection whose
 * Read list it cannot pull. The call then goes to the {@link CallHandler} with the chunks it provided
 * for the reply; the reply comes back through {@link #reply}, which conveys it as {@link ReplyPlan}
 * decides: RDMA Writes into Write chunks and the Reply chunk, then the Send. Every message sent carries
 * the grant (RFC 8166 §3.3.1).
 *
 * <h2>Backward direction (RFC 8167)</h2>
 * This side is also the requester of backward calls on each connection ({@link #backwardCall}):
 * inline only (§4.4), an RDMA_MSG without chunks carrying the backward credits asked for (§4.5); at
 * most as many outstanding per connection as the requester granted in its last backward reply, one
 * before the first (§4.1, {@link BackwardCalls}); the others wait in order. A received RDMA_MSG
 * without chunks whose RPC message is a REPLY is a backward reply ({@link RpcDirection}); it and an
 * RDMA_ERROR for an outstanding backward call go to the {@link BackwardReplyHandler}. Closing a
 * connection fails its backward calls.
 *
 * <h2>Buffer management</h2>
 * Each connection gets receive buffers of the inline receive size when it is accepted, one per
 * credit granted and one per backward credit asked for (RFC 8167: the backward replies need receives
 * too), as svcrdma posts receives per connection. A received buffer
 * belongs to this class while its connection's listener handles it: the RPC message is copied out for the worker,
 * and the buffer is posted again at once, so the receive path never waits for a worker. A call with Read chunks is rebuilt in a new
 * array registered for the reads and deregistered when they end; the array then belongs to the
 * handler. Reply headers are allocated per send and belong to the fabric until the send completes;
 * the chunk data of a reply is written from the reply's own buffers, each result's registered once
 * until its RDMA Writes complete.
 *
 * <h2>Threads</h2>
 * Everything runs on the fabric's progress thread except {@link #start}, {@link #reply},
 * {@link #backwardCall} and {@link #stop}, which hand work to it, and the counters.
 */
public final class Responder {

    private static final Logger LOG = LoggerFactory.getLogger(Responder.class);

    private final Fabric fabric;
    private final TransportConfig config;
    private final ResponderCredits credits;
    private final CallHandler handler;
    private final BackwardReplyHandler backwardReplies;
    /** The connection table: every connection accepted and not yet disconnected. */
    private final Map<Connection, Served> served = new LinkedHashMap<>();
    private final RpcRdmaHeaderFlyweight header;
    private final HeaderDecoder decoder;
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();
    private boolean stopping;
    private volatile long dropped;
    private volatile long rdmaErrorsSent;
    private volatile long protocolErrors;
    private volatile long closedForErrors;
    private volatile int connections;
    private volatile int pendingChunkWork;
    private volatile int chunkBuffers;
    private volatile int pendingBackwardCalls;
    private volatile int maxOutstandingBackwardCalls;

    /**
     * @param fabric          the fabric to serve on; this responder becomes its acceptor on {@link #start}
     * @param config          the inline sizes, the grant, the backward credits and the connection limit
     * @param handler         gets the calls
     * @param backwardReplies gets the answers to backward calls (RFC 8167), on the progress thread
     */
    public Responder(Fabric fabric, TransportConfig config, CallHandler handler, BackwardReplyHandler backwardReplies) {
        this.fabric = Objects.requireNonNull(fabric, "fabric");
        this.config = Objects.requireNonNull(config, "config");
        this.handler = Objects.requireNonNull(handler, "handler");
        this.backwardReplies = Objects.requireNonNull(backwardReplies, "backwardReplies");
        this.credits = new ResponderCredits(config.responderCredits());
        this.header = new RpcRdmaHeaderFlyweight(config.decodeLimits());
        this.decoder = new HeaderDecoder(config.decodeLimits());
    }

    /** Accepts connections on the fabric from now on. Thread-safe. */
    public void start() {
        fabric.execute(() -> fabric.listen(this::onConnectRequest));
    }

    /**
     * Conveys a reply as {@link ReplyPlan} decides. Thread-safe. A reply that cannot be conveyed (a
     * result larger than its Write chunk, a reply larger than the Reply chunk, or over the requester's
     * inline threshold without one) is not sent, never truncated: the requester gets RDMA_ERROR /
     * ERR_CHUNK for the call instead (RFC 8166 §4.5, Linux {@code svc_rdma_send_error_msg}).
     *
     * @param connection the connection the call came on
     * @param xid        the call's XID
     * @param rpcMessage the whole RPC reply message; its bytes must not change until {@code done}
     * @param provided   the chunks the call provided for its reply
     * @param payloads   the reply's DDP-eligible results ({@code DdpPolicy.replyPayloads})
     * @param done       called with {@code null} once sent, or with the error, on the progress thread
     */
    public void reply(Connection connection, int xid, MessageBytes rpcMessage, ProvidedChunks provided,
                      List<XdrItem> payloads, Consumer<RdmaTransportException> done) {
        ReplyPlan plan = ReplyPlan.of(xid, credits.granted(), rpcMessage, provided, payloads,
                connection.thresholds().send());
        if (plan == null) {
            execute(() -> sendError(connection, xid, RdmaError.errChunk()), done,
                    new RdmaTransportException(RdmaTransportException.Scope.CALL, "reply to xid 0x"
                            + Integer.toHexString(xid) + " of " + rpcMessage.length() + " bytes does not fit the chunks"
                            + " provided or the inline threshold; answered ERR_CHUNK"));
            return;
        }
        execute(() -> {
            if (connection.state() != Connection.State.CONNECTED) {
                done.accept(closed(connection, xid));
            } else if (plan.writes().isEmpty()) {
                connection.send(plan.message(), done);
            } else {
                writeThenSend(connection, xid, plan, done);
            }
        }, done, null);
    }

    /**
     * Sends a backward call to the requester of a connection (RFC 8167), now or when a backward
     * credit frees. Thread-safe. Its answer goes to the {@link BackwardReplyHandler}.
     *
     * @param connection the connection, whose requester serves the backward direction
     * @param xid        the call's XID, from this side's own XID space
     * @param rpcMessage the whole RPC call message, owned by the responder from now on
     * @throws RdmaTransportException CALL if the call does not fit the inline threshold (backward
     *                                messages are inline only, RFC 8167), CONNECTION if the
     *                                connection is closed
     */
    public void backwardCall(Connection connection, int xid, byte[] rpcMessage) throws RdmaTransportException {
        if (connection.state() != Connection.State.CONNECTED) {
            throw backwardClosed(connection, xid);
        }
        ByteBuffer message = InlineMessage.msg(xid, config.backwardRequesterCredits(), rpcMessage);
        int threshold = connection.thresholds().send();
        if (message.capacity() > threshold) {
            throw new RdmaTransportException(RdmaTransportException.Scope.CALL, "backward call xid 0x"
                    + Integer.toHexString(xid) + " of " + rpcMessage.length + " bytes makes a " + message.capacity()
                    + "-byte message over the " + threshold + "-byte inline threshold; backward messages are"
                    + " inline only (RFC 8167)");
        }
        try {
            fabric.execute(() -> {
                if (connection.state() != Connection.State.CONNECTED) {
                    backwardReplies.onBackwardFailed(connection, xid, backwardClosed(connection, xid));
                    return;
                }
                BackwardCalls calls = servedOf(connection).backward;
                calls.add(new BackwardCalls.Call(xid, message));
                pumpBackward(connection, calls);
            });
        } catch (IllegalStateException e) {
            throw backwardClosed(connection, xid);
        }
    }

    /** Sends the backward calls the credits allow. */
    private void pumpBackward(Connection connection, BackwardCalls calls) {
        while (connection.state() == Connection.State.CONNECTED) {
            BackwardCalls.Call call = calls.next();
            if (call == null) {
                break;
            }
            connection.send(call.message(), error -> {
                if (error != null && calls.unanswered(call.xid())) {
                    countBackward();
                    backwardReplies.onBackwardFailed(connection, call.xid(), error);
                    pumpBackward(connection, calls);
                }
            });
        }
        countBackward();
    }

    private void countBackward() {
        int pending = 0;
        int outstanding = maxOutstandingBackwardCalls;
        for (Served connection : served.values()) {
            pending += connection.backward.pending();
            outstanding = Math.max(outstanding, connection.backward.outstanding());
        }
        pendingBackwardCalls = pending;
        maxOutstandingBackwardCalls = outstanding;
    }

    /** @return backward calls sent and not yet answered or waiting for a backward credit; 0 when idle */
    public int pendingBackwardCalls() {
        return pendingBackwardCalls;
    }

    /** @return the most backward calls ever outstanding at once on one connection */
    public int maxOutstandingBackwardCalls() {
        return maxOutstandingBackwardCalls;
    }

    /** RDMA-Writes the reply's chunk data, then sends the header (RFC 8166 §3.4.6: data before the Send). */
    private void writeThenSend(Connection connection, int xid, ReplyPlan plan, Consumer<RdmaTransportException> done) {
        List<Registration> sources = new ArrayList<>(plan.sources().size());
        for (ByteBuffer bytes : plan.sources()) {
            Registration source = fabric.register(bytes, EnumSet.noneOf(MemoryAccess.class));
            if (source == null) {
                sources.forEach(fabric::deregister);
                sendError(connection, xid, RdmaError.errChunk());
                done.accept(new RdmaTransportException(RdmaTransportException.Scope.CALL, "reply to xid 0x"
                        + Integer.toHexString(xid) + ": the fabric could not register it; answered ERR_CHUNK"));
                return;
            }
            sources.add(source);
        }
        chunkWorkStarted();
        RdmaBatch batch = new RdmaBatch(status -> {
            sources.forEach(fabric::deregister);
            chunkWorkEnded();
            if (!status.ok()) {
                // svcrdma closes the connection when it cannot Write a chunk: the requester's memory is gone.
                closeWithPeer(connection, "RDMA Write of the reply to xid 0x" + Integer.toHexString(xid)
                        + " failed: " + status);
                done.accept(closed(connection, xid));
            } else if (connection.state() != Connection.State.CONNECTED) {
                done.accept(closed(connection, xid));
            } else {
                connection.send(plan.message(), done);
            }
        });
        for (ReplyPlan.Write write : plan.writes()) {
            connection.work().write(sources.get(write.source()), write.sourceOffset(), write.target(),
                    batch.operation());
        }
        batch.seal();
    }

    /** @return calls whose Read chunks or reply chunk data are moving now; 0 when idle */
    public int pendingChunkWork() {
        return pendingChunkWork;
    }

    /** @return chunk buffers registered now; 0 when nothing leaks */
    public int chunkBuffers() {
        return chunkBuffers;
    }

    private void chunkWorkStarted() {
        pendingChunkWork++;
        chunkBuffers++;
    }

    private void chunkWorkEnded() {
        pendingChunkWork--;
        chunkBuffers--;
    }

    private void execute(Runnable command, Consumer<RdmaTransportException> done, RdmaTransportException result) {
        try {
            fabric.execute(command);
        } catch (IllegalStateException e) {
            done.accept(new RdmaTransportException(RdmaTransportException.Scope.CONNECTION,
                    "the fabric's progress thread has stopped"));
            return;
        }
        if (result != null) {
            done.accept(result);
        }
    }

    /**
     * Closes every connection, telling each requester, and stops accepting. Thread-safe.
     *
     * @return completes when every connection has ended on the fabric
     */
    public CompletableFuture<Void> stop() {
        fabric.execute(() -> {
            stopping = true;
            fabric.stopListening();
            for (Served connection : new ArrayList<>(served.values())) {
                disconnect(connection.connection, "the responder stopped");
            }
            completeStopIfIdle();
        });
        return stopped;
    }

    /** @return how many received messages were dropped without an answer */
    public long dropped() {
        return dropped;
    }

    /** @return RDMA_ERROR messages sent */
    public long rdmaErrorsSent() {
        return rdmaErrorsSent;
    }

    /** @return received messages that broke the protocol ({@link #protocolError}) */
    public long protocolErrors() {
        return protocolErrors;
    }

    /** @return connections closed because they kept breaking the protocol */
    public long closedForErrors() {
        return closedForErrors;
    }

    /** @return connections in the table: accepted and not yet disconnected */
    public int connections() {
        return connections;
    }

    /** Accepts a connection, or refuses it when stopping or full; progress thread. */
    private void onConnectRequest(Fabric.ConnectRequest request) {
        if (stopping || served.size() >= config.maxConnections()) {
            LOG.warn("refused a connection from {}: {}", request.peer(),
                    stopping ? "stopping" : served.size() + " connections already");
            request.reject();
            return;
        }
        int receives = credits.receivesFor(1) + config.backwardRequesterCredits();
        List<ByteBuffer> buffers = new ArrayList<>(receives);
        for (int i = 0; i < receives; i++) {
            buffers.add(ByteBuffer.allocate(config.inlineReceiveSize()));
        }
        Served connection = new Served(config.backwardRequesterCredits(),
                InlineThresholds.of(config.privateData(), request.privateData()));
        connection.connection = new Connection(request.accept(config.privateData(), buffers, connection));
        served.put(connection.connection, connection);
        connections = served.size();
    }

    private Served servedOf(Connection connection) {
        Served found = served.get(connection);
        if (found == null) {
            throw new IllegalStateException(connection + " is not in the table");
        }
        return found;
    }

    /** One accepted connection's events: receives, completions and its end. Progress thread. */
    private final class Served implements ConnectionListener {

        final BackwardCalls backward;
        final InlineThresholds thresholds;
        Connection connection;
        int protocolErrors;

        Served(int backwardCredits, InlineThresholds thresholds) {
            this.backward = new BackwardCalls(backwardCredits);
            this.thresholds = thresholds;
        }

        @Override
        public void onEstablished(ConnectPrivateData peerData) {
            connection.up(thresholds);
            LOG.debug("accepted {} with thresholds {}", connection, thresholds);
        }

        @Override
        public void onReceived(ByteBuffer buffer, int length) {
            try {
                onData(connection, buffer, length);
            } finally {
                repost(connection, buffer);
            }
        }

        @Override
        public void onReceiveFailed(ByteBuffer buffer, FabricStatus status) {
            if (status == FabricStatus.MESSAGE_TOO_LONG) {
                // A message longer than the inline receive size breaks RFC 8166 §3.3.2; nothing to answer to.
                dropped++;
                repost(connection, buffer);
                protocolError(connection, "a message longer than the " + config.inlineReceiveSize()
                        + "-byte inline receive size");
            }
        }

        @Override
        public void onSendCompleted(long context, FabricStatus status) {
            connection.work().onCompleted(context, status);
            completeStopIfIdle();
        }

        @Override
        public void onRdmaCompleted(long context, FabricStatus status) {
            connection.work().onCompleted(context, status);
        }

        @Override
        public void onDisconnected(FabricStatus status, String detail) {
            closeLocally(connection, status == FabricStatus.CLOSED ? "closed by the requester" : status + ": " + detail);
            served.remove(connection);
            connections = served.size();
            completeStopIfIdle();
        }
    }

    private static void repost(Connection connection, ByteBuffer buffer) {
        if (!connection.repost(buffer)) {
            LOG.warn("the fabric has no room for another receive on {}; serving it with fewer", connection);
        }
    }

    private void onData(Connection connection, ByteBuffer buffer, int length) {
        if (connection.state() != Connection.State.CONNECTED) {
            dropped++;
            return;
        }
        try {
            header.wrap(buffer, buffer.position(), length);
        } catch (RpcRdmaDecodeException e) {
            LOG.debug("bad message from {}: {} ({})", connection, e.getMessage(), e.rule().source());
            e.answer(credits.granted()).ifPresentOrElse(answer -> {
                connection.send(InlineMessage.error(answer), null);
                rdmaErrorsSent++;
            }, () -> dropped++);
            protocolError(connection, e.getMessage());
            return;
        }
        int xid = header.xid();
        if (header.proc() == Proc.RDMA_ERROR || RpcDirection.msgType(header, buffer) == RpcDirection.REPLY) {
            // Never answer either (RFC 8166 §4.5); one not for a backward call is dropped, as svcrdma does.
            onBackwardAnswer(connection, xid, buffer);
            return;
        }
        if (header.readSegmentCount() == 0 && header.writeChunkCount() == 0 && !header.hasReplyChunk()) {
            if (header.proc() == Proc.RDMA_NOMSG) {
                // RDMA_NOMSG without a Position-zero Read chunk carries no call (RFC 8166 §5.1).
                sendError(connection, xid, RdmaError.errChunk());
                protocolError(connection, "RDMA_NOMSG without a Position-zero Read chunk");
            } else {
                handler.onCall(connection, xid, payload(buffer), ProvidedChunks.NONE);
            }
            return;
        }
        RpcRdmaHeader decoded;
        try {
            decoded = decoder.decode(buffer, buffer.position(), length).header();
        } catch (RpcRdmaDecodeException e) {
            // The flyweight accepted it; the decoder's rules are the same, so this does not happen.
            sendError(connection, xid, RdmaError.errChunk());
            protocolError(connection, e.getMessage());
            return;
        }
        ProvidedChunks provided = new ProvidedChunks(decoded.writeList(), decoded.replyChunk());
        List<ReadChunk> reads = decoded.readChunks();
        if (!reads.isEmpty()) {
            pull(connection, xid, reads, provided, buffer);
        } else if (header.proc() == Proc.RDMA_NOMSG) {
            sendError(connection, xid, RdmaError.errChunk());
            protocolError(connection, "RDMA_NOMSG without a Position-zero Read chunk");
        } else {
            handler.onCall(connection, xid, payload(buffer), provided);
        }
    }

    /** A backward reply, or an RDMA_ERROR by which the requester refused a backward call (RFC 8166 §4.5). */
    private void onBackwardAnswer(Connection connection, int xid, ByteBuffer buffer) {
        BackwardCalls calls = servedOf(connection).backward;
        if (!calls.answered(xid, header.credits())) {
            LOG.debug("dropped a {} for xid 0x{} from {}: no such backward call outstanding", header.proc(),
                    Integer.toHexString(xid), connection);
            dropped++;
            protocolError(connection, "a " + header.proc() + " for no backward call outstanding");
            return;
        }
        // Counted before the answer is handed over: whoever gets it finds the call no longer pending.
        countBackward();
        if (header.proc() == Proc.RDMA_ERROR) {
            backwardReplies.onBackwardFailed(connection, xid, new RdmaTransportException(
                    RdmaTransportException.Scope.CALL, "backward call xid 0x" + Integer.toHexString(xid)
                            + ": the requester answered RDMA_ERROR " + header.errorCode()));
        } else {
            backwardReplies.onBackwardReply(connection, xid, payload(buffer));
        }
        pumpBackward(connection, calls);
    }

    private byte[] payload(ByteBuffer buffer) {
        byte[] rpc = new byte[header.payloadLength()];
        buffer.get(header.payloadOffset(), rpc);
        return rpc;
    }

    /**
     * Starts pulling a call's Read chunks. A layout the decoder let through but that does not make a
     * stream, or a call longer than the configured maximum, is answered ERR_CHUNK, as svcrdma answers
     * a Read list it will not pull; so is a call whose memory cannot be registered.
     */
    private void pull(Connection connection, int xid, List<ReadChunk> reads, ProvidedChunks provided,
                      ByteBuffer buffer) {
        ReadChunkPull pull;
        try {
            pull = new ReadChunkPull(header.payloadLength(), reads);
        } catch (IllegalArgumentException e) {
            sendError(connection, xid, RdmaError.errChunk());
            protocolError(connection, e.getMessage());
            return;
        }
        long chunked = 0;
        for (ReadChunk read : reads) {
            chunked += read.length();
        }
        if (chunked > config.maxMessageSize()) {
            LOG.debug("xid 0x{} from {}: {} bytes in Read chunks exceed the {}-byte largest I/O",
                    Integer.toHexString(xid), connection, chunked, config.maxMessageSize());
            sendError(connection, xid, RdmaError.errChunk());
            return;
        }
        chunkWorkStarted();
        boolean started = pull.start(fabric, connection.work(), buffer, header.payloadOffset(),
                config.maxSegmentSize(), (message, status) -> {
                    chunkWorkEnded();
                    if (connection.state() != Connection.State.CONNECTED) {
                        return;
                    }
                    if (!status.ok()) {
                        closeWithPeer(connection, "RDMA Read of a Read chunk of xid 0x" + Integer.toHexString(xid)
                                + " failed: " + status);
                    } else {
                        handler.onCall(connection, xid, message, provided);
                    }
                });
        if (!started) {
            chunkWorkEnded();
            sendError(connection, xid, RdmaError.errChunk());
        }
    }

    private void closeWithPeer(Connection connection, String reason) {
        if (connection.state() != Connection.State.CLOSED) {
            LOG.warn("closing {}: {}", connection, reason);
            disconnect(connection, reason);
        }
    }

    /** Ends a connection from this side: its calls fail with the reason, and the requester hears the end. */
    private void disconnect(Connection connection, String reason) {
        if (connection.state() != Connection.State.CLOSED) {
            closeLocally(connection, reason);
            connection.fabricConnection().close();
        }
    }

    private void sendError(Connection connection, int xid, RdmaError error) {
        if (connection.state() == Connection.State.CONNECTED) {
            connection.send(InlineMessage.error(
                    RpcRdmaHeader.error(xid, RpcRdmaHeader.VERSION, credits.granted(), error)), null);
            rdmaErrorsSent++;
        }
    }

    /**
     * Counts a received message that broke RPC-over-RDMA or RPC, answered or dropped as Linux does,
     * and closes its connection at the {@link TransportConfig#PROTOCOL_ERRORS_PER_CONNECTION}th: a
     * peer that keeps sending what cannot be served costs no more than that. Progress thread only.
     *
     * @param connection the connection it came on
     * @param what       what was wrong, for the log
     */
    public void protocolError(Connection connection, String what) {
        protocolErrors++;
        Served peer = served.get(connection);
        if (peer == null || ++peer.protocolErrors < TransportConfig.PROTOCOL_ERRORS_PER_CONNECTION
                || connection.state() == Connection.State.CLOSED) {
            return;
        }
        closedForErrors++;
        LOG.warn("closing {}: {} messages broke the protocol, the last: {}", connection, peer.protocolErrors, what);
        disconnect(connection, "it kept breaking the protocol");
    }

    private void closeLocally(Connection connection, String reason) {
        if (connection.close(reason)) {
            LOG.debug("{} closed: {}", connection, reason);
            List<Integer> failed = servedOf(connection).backward.clear();
            countBackward();
            for (int xid : failed) {
                backwardReplies.onBackwardFailed(connection, xid, backwardClosed(connection, xid));
            }
            handler.onClosed(connection);
        }
    }

    private void completeStopIfIdle() {
        if (stopping && served.isEmpty()) {
            stopped.complete(null);
        }
    }

    private static RdmaTransportException backwardClosed(Connection connection, int xid) {
        String state = connection.state() == Connection.State.CLOSED ? "closed: " + connection.closeReason()
                : "is not up";
        return new RdmaTransportException(RdmaTransportException.Scope.CONNECTION, "backward call xid 0x"
                + Integer.toHexString(xid) + " failed: " + connection + " " + state);
    }

    private static RdmaTransportException closed(Connection connection, int xid) {
        return new RdmaTransportException(RdmaTransportException.Scope.CONNECTION, "reply to xid 0x"
                + Integer.toHexString(xid) + " not sent: " + connection + " closed: " + connection.closeReason());
    }
}
