package org.rpcrdma4j.transport.conn;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.rpcrdma4j.transport.Channel;
import org.rpcrdma4j.transport.Fabric;
import org.rpcrdma4j.transport.FabricListener;
import org.rpcrdma4j.transport.RdmaTransportException;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.xdr.ConnectPrivateData;
import org.rpcrdma4j.xdr.Proc;
import org.rpcrdma4j.xdr.RdmaError;
import org.rpcrdma4j.xdr.RpcRdmaDecodeException;
import org.rpcrdma4j.xdr.RpcRdmaHeader;
import org.rpcrdma4j.xdr.RpcRdmaHeaderFlyweight;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The responder (server) side of every connection on one fabric.
 *
 * <h2>Operation</h2>
 * Accepts CONNECT on the control channel and answers ACCEPT with its RFC 8797 private data; decodes
 * and validates every data message and answers a bad one as Linux svcrdma does
 * ({@code svc_rdma_xdr_decode_req}): ERR_VERS, ERR_CHUNK or a silent drop, as the decoder's exception
 * names. A good inline call goes to the {@link CallHandler}; its reply comes back through
 * {@link #reply}. Every message sent carries the grant (RFC 8166 §3.3.1).
 *
 * <h2>Buffer management</h2>
 * Receive buffers of the inline receive size are posted up front, {@code credits × maxConnections}
 * for data and a few for control, from any peer. A received buffer belongs to this class during
 * {@link #onReceived}: the RPC message is copied out for the worker, and the buffer is posted again
 * at once, so the receive path never waits for a worker. Reply buffers are allocated per send and
 * belong to the fabric until the send completes.
 *
 * <h2>Threads</h2>
 * Everything runs on the fabric's progress thread except {@link #start}, {@link #reply} and
 * {@link #stop}, which hand work to it.
 */
public final class Responder implements FabricListener {

    private static final Logger LOG = LoggerFactory.getLogger(Responder.class);
    private static final int CONTROL_RECEIVES = 4;
    private static final int MAX_CONNECTION_NUMBER = 0xFFFF;

    private final Fabric fabric;
    private final TransportConfig config;
    private final ResponderCredits credits;
    private final CallHandler handler;
    private final SendQueue sends;
    private final Map<Long, Connection> byPeer = new HashMap<>();
    private final RpcRdmaHeaderFlyweight header = new RpcRdmaHeaderFlyweight();
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();
    private int lastNumber;
    private boolean stopping;
    private volatile long dropped;

    /**
     * @param fabric  the fabric to serve on; this responder becomes its listener on {@link #start}
     * @param config  the inline sizes, the grant and the connection limit
     * @param handler gets the calls
     */
    public Responder(Fabric fabric, TransportConfig config, CallHandler handler) {
        this.fabric = Objects.requireNonNull(fabric, "fabric");
        this.config = Objects.requireNonNull(config, "config");
        this.handler = Objects.requireNonNull(handler, "handler");
        this.credits = new ResponderCredits(config.responderCredits());
        this.sends = new SendQueue(fabric);
    }

    /** Listens on the fabric and posts the receive buffers. Thread-safe. */
    public void start() {
        fabric.listen(this);
        fabric.execute(() -> {
            for (int i = 0; i < CONTROL_RECEIVES; i++) {
                post(Channel.CONTROL, ByteBuffer.allocate(ControlMessage.MAX_LENGTH));
            }
            for (int i = 0; i < credits.receivesFor(config.maxConnections()); i++) {
                post(Channel.DATA, ByteBuffer.allocate(config.inlineReceiveSize()));
            }
        });
    }

    /**
     * Sends a reply inline. Thread-safe. A reply larger than the requester's inline threshold is not
     * sent: the requester gets RDMA_ERROR / ERR_CHUNK for the call instead, as Linux svcrdma answers a
     * reply it cannot send ({@code svc_rdma_send_error_msg}), so its call fails at once.
     *
     * @param connection the connection the call came on
     * @param xid        the call's XID
     * @param rpcMessage the whole RPC reply message, owned by the responder from now on
     * @param done       called with {@code null} once sent, or with the error, on the progress thread
     */
    public void reply(Connection connection, int xid, byte[] rpcMessage, Consumer<RdmaTransportException> done) {
        try {
            InlineMessage.checkFits(xid, rpcMessage.length, connection.thresholds().send());
        } catch (RdmaTransportException e) {
            execute(() -> sendError(connection, xid, RdmaError.errChunk()), done, e);
            return;
        }
        execute(() -> {
            if (connection.state() != Connection.State.CONNECTED) {
                done.accept(closed(connection, xid));
            } else {
                sends.send(Channel.DATA, connection.peer(), InlineMessage.msg(xid, credits.granted(), rpcMessage), done);
            }
        }, done, null);
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
     * Closes every connection, telling each requester with CLOSE, and stops accepting. Thread-safe.
     *
     * @return completes when the CLOSE messages are sent
     */
    public CompletableFuture<Void> stop() {
        fabric.execute(() -> {
            stopping = true;
            for (Connection connection : new ArrayList<>(byPeer.values())) {
                sends.send(Channel.CONTROL, connection.peer(), ControlMessage.close().encode(), null);
                closeLocally(connection, "the responder stopped");
            }
            completeStopIfIdle();
        });
        return stopped;
    }

    /** @return how many received messages were dropped without an answer */
    public long dropped() {
        return dropped;
    }

    @Override
    public void onReceived(Channel channel, long peer, ByteBuffer buffer, int length) {
        try {
            if (channel == Channel.CONTROL) {
                onControl(peer, buffer, length);
            } else {
                onData(peer, buffer, length);
            }
        } finally {
            buffer.clear();
            post(channel, buffer);
        }
    }

    @Override
    public void onReceiveFailed(Channel channel, long peer, ByteBuffer buffer, String reason) {
        // A message longer than the inline receive size breaks RFC 8166 §3.3.2; nothing to answer to.
        dropped++;
        LOG.warn("dropped a {} message from peer {}: {}", channel, peer, reason);
        buffer.clear();
        post(channel, buffer);
    }

    @Override
    public void onSendCompleted(long context, String error) {
        sends.onSendCompleted(context, error);
        completeStopIfIdle();
    }

    private void post(Channel channel, ByteBuffer buffer) {
        if (!stopping && !fabric.postReceive(channel, Fabric.ANY_PEER, buffer)) {
            LOG.warn("the fabric has no room for another {} receive; serving with fewer", channel);
        }
    }

    private void onControl(long peer, ByteBuffer buffer, int length) {
        ControlMessage message = ControlMessage.decode(buffer, buffer.position(), length).orElse(null);
        if (message == null || message.type() == ControlMessage.Type.ACCEPT || stopping) {
            dropped++;
            return;
        }
        Connection existing = byPeer.remove(peer);
        if (existing != null) {
            closeLocally(existing, message.type() == ControlMessage.Type.CLOSE
                    ? "closed by the requester" : "the requester connected again");
        }
        if (message.type() == ControlMessage.Type.CONNECT) {
            accept(peer, message);
        }
    }

    private void accept(long peer, ControlMessage connect) {
        if (byPeer.size() >= config.maxConnections()) {
            LOG.warn("refused a connection from {}: {} connections already", connect.address(), byPeer.size());
            sends.send(Channel.CONTROL, peer, ControlMessage.close().encode(), null);
            return;
        }
        ConnectPrivateData ours = config.privateData();
        Connection connection = new Connection(peer, fabric.localAddress(), connect.address());
        lastNumber = lastNumber % MAX_CONNECTION_NUMBER + 1;
        connection.up(InlineThresholds.of(ours, connect.privateData()), lastNumber);
        byPeer.put(peer, connection);
        sends.send(Channel.CONTROL, peer, ControlMessage.accept(ours, lastNumber).encode(), null);
        LOG.debug("accepted {} with thresholds {}", connection, connection.thresholds());
    }

    private void onData(long peer, ByteBuffer buffer, int length) {
        Connection connection = byPeer.get(peer);
        if (connection == null) {
            dropped++;
            return;
        }
        try {
            header.wrap(buffer, buffer.position(), length);
        } catch (RpcRdmaDecodeException e) {
            LOG.debug("bad message from {}: {} ({})", connection, e.getMessage(), e.rule().source());
            e.answer(credits.granted()).ifPresentOrElse(
                    answer -> sends.send(Channel.DATA, peer, InlineMessage.error(answer), null), () -> dropped++);
            return;
        }
        if (header.proc() == Proc.RDMA_ERROR) {
            // Never answer an RDMA_ERROR (RFC 8166 §4.5); Linux svcrdma drops it.
            dropped++;
            return;
        }
        if (header.proc() != Proc.RDMA_MSG || header.readSegmentCount() > 0 || header.writeChunkCount() > 0
                || header.hasReplyChunk()) {
            LOG.debug("xid 0x{} from {} uses chunks, not supported yet", Integer.toHexString(header.xid()), connection);
            sendError(connection, header.xid(), RdmaError.errChunk());
            return;
        }
        byte[] rpc = new byte[header.payloadLength()];
        buffer.get(header.payloadOffset(), rpc);
        handler.onCall(connection, header.xid(), rpc);
    }

    private void sendError(Connection connection, int xid, RdmaError error) {
        if (connection.state() == Connection.State.CONNECTED) {
            sends.send(Channel.DATA, connection.peer(), InlineMessage.error(
                    RpcRdmaHeader.error(xid, RpcRdmaHeader.VERSION, credits.granted(), error)), null);
        }
    }

    private void closeLocally(Connection connection, String reason) {
        byPeer.remove(connection.peer(), connection);
        if (connection.close(reason)) {
            LOG.debug("{} closed: {}", connection, reason);
            handler.onClosed(connection);
        }
    }

    private void completeStopIfIdle() {
        if (stopping && sends.idle()) {
            stopped.complete(null);
        }
    }

    private static RdmaTransportException closed(Connection connection, int xid) {
        return new RdmaTransportException(RdmaTransportException.Scope.CONNECTION, "reply to xid 0x"
                + Integer.toHexString(xid) + " not sent: " + connection + " closed: " + connection.closeReason());
    }
}
