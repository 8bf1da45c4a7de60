package org.rpcrdma4j.transport.conn;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricConnection;
import org.rpcrdma4j.fabric.FabricStatus;
import org.rpcrdma4j.transport.MessageBytes;
import org.rpcrdma4j.transport.RdmaTransportException;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.marshal.ProvidedChunks;
import org.rpcrdma4j.transport.marshal.ReplyPlan;
import org.rpcrdma4j.transport.rw.ReadChunkPull;
import org.rpcrdma4j.xdr.ConnectPrivateData;
import org.rpcrdma4j.xdr.Proc;
import org.rpcrdma4j.xdr.RdmaError;
import org.rpcrdma4j.xdr.ReadChunk;
import org.rpcrdma4j.xdr.RpcRdmaDecodeException;
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
 * for the reply; the reply comes back through {@link #reply}, which {@code ReplySender} conveys as
 * {@link ReplyPlan} decides: RDMA Writes into Write chunks and the Reply chunk, then the Send. Every
 * message sent carries the grant (RFC 8166 §3.3.1). When the requester offered remote invalidation
 * (RFC 8797) and the fabric connection can do it, a reply's Send invalidates the one handle its call's
 * chunks carried ({@link ProvidedChunks#of}, as svcrdma picks it); RDMA_ERROR and backward calls are
 * plain Sends.
 *
 * <h2>Backward direction (RFC 8167)</h2>
 * This side is also the requester of backward calls on each connection ({@link #backwardCall}, done by
 * {@code BackwardRequester}). A received RDMA_MSG without chunks whose RPC message is a REPLY is a
 * backward reply ({@link RpcDirection}); it and an RDMA_ERROR go to the backward requester, which
 * drops one that answers no backward call.
 *
 * <h2>Buffer management</h2>
 * Each connection gets receive buffers of the inline receive size when it is accepted, one per
 * credit granted, one per backward credit asked for (RFC 8167: the backward replies need receives
 * too) and a spare ({@link ConnectionEvents#receiveBuffers}, from the fabric's {@code MessageBuffers}), as svcrdma posts receives per connection. Received buffers are handled by each connection's
 * {@code ConnectionEvents}: the RPC message is copied out for the worker and the buffer posted again
 * at once. A call with Read chunks is rebuilt in a new
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
    private final BackwardRequester backward;
    /** The connection table: every connection accepted and not yet disconnected. */
    private final Map<Connection, Served> served = new LinkedHashMap<>();
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();
    private boolean stopping;
    private final LongAdder dropped = new LongAdder();
    private final LongAdder copied = new LongAdder();
    private final LongAdder rdmaErrorsSent = new LongAdder();
    private final LongAdder protocolErrors = new LongAdder();
    private final LongAdder closedForErrors = new LongAdder();
    private volatile int connections;
    private final ChunkWork chunkWork = new ChunkWork();
    private final ReplySender replies;

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
        this.backward = new BackwardRequester(fabric, config.backwardRequesterCredits(),
                Objects.requireNonNull(backwardReplies, "backwardReplies"));
        this.credits = new ResponderCredits(config.responderCredits());
        this.replies = new ReplySender(fabric, credits, copied, rdmaErrorsSent, chunkWork, this::closeWithPeer);
    }

    /**
     * Accepts connections on the fabric from now on. Thread-safe.
     *
     * @return completes once the fabric listens, or with why it cannot (it has an acceptor already, or
     *     cannot listen on its address)
     */
    public CompletableFuture<Void> start() {
        CompletableFuture<Void> listening = new CompletableFuture<>();
        fabric.execute(() -> {
            try {
                fabric.listen(this::onConnectRequest);
                listening.complete(null);
            } catch (RuntimeException e) {
                listening.completeExceptionally(e);
            }
        });
        return listening;
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
     * @param encodedIn  a buffer of the fabric's {@code MessageBuffers} the reply was encoded into, from
     *                   {@link ReplyPlan#HEADER_ROOM} on, which the responder owns from now on and
     *                   sends a short reply from; or {@code null}
     * @param provided   the chunks the call provided for its reply
     * @param payloads   the reply's DDP-eligible results ({@code DdpPolicy.replyPayloads})
     * @param done       called with {@code null} once sent, or with the error, on the progress thread
     */
    public void reply(Connection connection, int xid, MessageBytes rpcMessage, ByteBuffer encodedIn,
                      ProvidedChunks provided, List<XdrItem> payloads, Consumer<RdmaTransportException> done) {
        replies.reply(connection, xid, rpcMessage, encodedIn, provided, payloads, done);
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
        backward.call(connection, xid, rpcMessage);
    }

    /** @return backward calls sent and not yet answered or waiting for a backward credit; 0 when idle */
    public int pendingBackwardCalls() {
        return backward.pending();
    }

    /** @return the most backward calls ever outstanding at once on one connection */
    public int maxOutstandingBackwardCalls() {
        return backward.maxOutstanding();
    }

    /** @return calls whose Read chunks or reply chunk data are moving now; 0 when idle */
    public int pendingChunkWork() {
        return chunkWork.pending();
    }

    /** @return chunk buffers registered now; 0 when nothing leaks */
    public int chunkBuffers() {
        return chunkWork.buffers();
    }

    /**
     * Closes every connection, telling each requester, and stops accepting. Thread-safe.
     *
     * @return completes when every connection has ended on the fabric; at once if the progress thread
     *     has stopped (the fabric was closed, which ended every connection)
     */
    public CompletableFuture<Void> stop() {
        boolean queued = Connection.execute(fabric, () -> {
            stopping = true;
            fabric.stopListening();
            for (Served connection : new ArrayList<>(served.values())) {
                disconnect(connection.connection, "the responder stopped");
            }
            completeStopIfIdle();
        });
        if (!queued) {
            stopped.complete(null);
        }
        return stopped;
    }

    /**
     * @return bytes this side of the transport copied, counted where it copies: calls out of receive
     *     buffers, the inline part of a call rebuilt from Read chunks, the inline part of each reply
     *     (RDMA Reads and Writes are the fabric's moves, not counted)
     */
    public long copiedBytes() {
        return copied.sum();
    }

    /** @return how many received messages were dropped without an answer */
    public long dropped() {
        return dropped.sum();
    }

    /** @return RDMA_ERROR messages sent */
    public long rdmaErrorsSent() {
        return rdmaErrorsSent.sum();
    }

    /** @return received messages that broke the protocol ({@link #protocolError}) */
    public long protocolErrors() {
        return protocolErrors.sum();
    }

    /** @return connections closed because they kept breaking the protocol */
    public long closedForErrors() {
        return closedForErrors.sum();
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
        Served connection = new Served(InlineThresholds.of(config.privateData(), request.privateData()));
        List<ByteBuffer> buffers = connection.receiveBuffers(
                credits.receivesFor(1) + config.backwardRequesterCredits(), config.inlineReceiveSize());
        FabricConnection accepted = request.accept(config.privateData(), buffers, connection);
        // svcrdma's sc_snd_w_inv: the requester offered remote invalidation and the fabric can do it.
        connection.remoteInvalidation = request.privateData().remoteInvalidate() && accepted.remoteInvalidation();
        connection.connection = new Connection(accepted, fabric.messageBuffers());
        served.put(connection.connection, connection);
        backward.opened(connection.connection);
        connections = served.size();
    }

    /** One accepted connection's events: calls, backward answers and its end. Progress thread. */
    private final class Served extends ConnectionEvents {

        final InlineThresholds thresholds;
        /** Whether replies on it may invalidate the requester's handles (Send with Invalidate). */
        boolean remoteInvalidation;
        /** Messages on it that broke the protocol ({@link #protocolError}). */
        int protocolErrors;

        Served(InlineThresholds thresholds) {
            super(config.decodeLimits(), fabric.messageBuffers(), copied, dropped);
            this.thresholds = thresholds;
        }

        @Override
        public void onEstablished(ConnectPrivateData peerData) {
            connection.up(thresholds);
            LOG.debug("accepted {} with thresholds {}", connection, thresholds);
        }

        @Override
        void onOversized() {
            protocolError(connection, "a message longer than the " + config.inlineReceiveSize()
                    + "-byte inline receive size");
        }

        @Override
        public void onSendCompleted(long context, FabricStatus status) {
            super.onSendCompleted(context, status);
            completeStopIfIdle();
        }

        @Override
        public void onDisconnected(FabricStatus status, String detail) {
            closeLocally(connection, status == FabricStatus.CLOSED ? "closed by the requester" : status + ": " + detail);
            served.remove(connection);
            connections = served.size();
            completeStopIfIdle();
        }

        @Override
        void onBadHeader(RpcRdmaDecodeException e) {
            if (connection.state() != Connection.State.CONNECTED) {
                drop();
                return;
            }
            LOG.debug("bad message from {}: {} ({})", connection, e.getMessage(), e.rule().source());
            e.answer(credits.granted()).ifPresentOrElse(answer -> {
                connection.send(InlineMessage.error(answer), null);
                rdmaErrorsSent.increment();
            }, this::drop);
            protocolError(connection, e.getMessage());
        }

        @Override
        void onMessage(ByteBuffer buffer) {
            if (connection.state() != Connection.State.CONNECTED) {
                drop();
                return;
            }
            int xid = header.xid();
            if (header.proc() == Proc.RDMA_ERROR || RpcDirection.msgType(header, buffer) == RpcDirection.REPLY) {
                // Never answer either (RFC 8166 §4.5); one not for a backward call is dropped, as svcrdma does.
                if (!backward.onAnswer(connection, header, () -> payload(buffer))) {
                    LOG.debug("dropped a {} for xid 0x{} from {}: no such backward call outstanding", header.proc(),
                            Integer.toHexString(xid), connection);
                    drop();
                    protocolError(connection, "a " + header.proc() + " for no backward call outstanding");
                }
                return;
            }
            if (header.proc() == Proc.RDMA_NOMSG && header.readSegmentCount() == 0) {
                // RDMA_NOMSG without a Position-zero Read chunk carries no call (RFC 8166 §5.1).
                sendError(connection, xid, RdmaError.errChunk());
                protocolError(connection, "RDMA_NOMSG without a Position-zero Read chunk");
                return;
            }
            if (header.readSegmentCount() == 0 && header.writeChunkCount() == 0 && !header.hasReplyChunk()) {
                call(xid, buffer, ProvidedChunks.NONE);
                return;
            }
            // The chunk model is built from the view that checked the header: nothing is decoded twice.
            ProvidedChunks provided = ProvidedChunks.of(header.readList(), header.writeList(), header.replyChunk(),
                    remoteInvalidation);
            if (header.readSegmentCount() > 0) {
                pull(connection, xid, header.readChunks(), provided, buffer, header.payloadOffset(),
                        header.payloadLength());
            } else {
                call(xid, buffer, provided);
            }
        }

        /** Hands an inline call up in its receive buffer, lent, or else as a copy. */
        private void call(int xid, ByteBuffer buffer, ProvidedChunks provided) {
            if (lend()) {
                handler.onCall(connection, xid, buffer.slice(header.payloadOffset(), header.payloadLength()), buffer,
                        provided);
            } else {
                handler.onCall(connection, xid, ByteBuffer.wrap(payload(buffer)), null, provided);
            }
        }
    }

    /**
     * Starts pulling a call's Read chunks. A layout the decoder let through but that does not make a
     * stream, or a call longer than the configured maximum, is answered ERR_CHUNK, as svcrdma answers
     * a Read list it will not pull; so is a call whose memory cannot be registered.
     */
    private void pull(Connection connection, int xid, List<ReadChunk> reads, ProvidedChunks provided,
                      ByteBuffer buffer, int inlineOffset, int inlineLength) {
        ReadChunkPull pull;
        try {
            pull = new ReadChunkPull(inlineLength, reads);
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
        chunkWork.started(1);
        boolean started = pull.start(fabric, connection.work(), buffer, inlineOffset,
                config.maxSegmentSize(), copied, (message, status) -> {
                    chunkWork.ended(1);
                    if (connection.state() != Connection.State.CONNECTED) {
                        return;
                    }
                    if (!status.ok()) {
                        closeWithPeer(connection, "RDMA Read of a Read chunk of xid 0x" + Integer.toHexString(xid)
                                + " failed: " + status);
                    } else {
                        handler.onCall(connection, xid, ByteBuffer.wrap(message), null, provided);
                    }
                });
        if (!started) {
            chunkWork.ended(1);
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
        if (connection.sendError(xid, credits.granted(), error)) {
            rdmaErrorsSent.increment();
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
        protocolErrors.increment();
        Served peer = served.get(connection);
        if (peer == null || ++peer.protocolErrors < TransportConfig.PROTOCOL_ERRORS_PER_CONNECTION
                || connection.state() == Connection.State.CLOSED) {
            return;
        }
        closedForErrors.increment();
        LOG.warn("closing {}: {} messages broke the protocol, the last: {}", connection, peer.protocolErrors, what);
        disconnect(connection, "it kept breaking the protocol");
    }

    private void closeLocally(Connection connection, String reason) {
        if (connection.close(reason)) {
            LOG.debug("{} closed: {}", connection, reason);
            backward.closed(connection);
            handler.onClosed(connection);
        }
    }

    private void completeStopIfIdle() {
        if (stopping && served.isEmpty()) {
            stopped.complete(null);
        }
    }
}
