package org.rpcrdma4j.transport.oncrpc;

import java.net.InetSocketAddress;
import java.nio.channels.CompletionHandler;
import java.util.Objects;
import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcAuthError;
import org.dcache.oncrpc4j.rpc.RpcAuthException;
import org.dcache.oncrpc4j.rpc.RpcAuthStat;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.rpcrdma4j.transport.conn.Connection;
import org.rpcrdma4j.transport.conn.Responder;

/**
 * The server side's {@link RpcTransport} for one connection: {@link #send} hands a reply to the
 * {@link Responder}, which sends it inline from the progress thread.
 *
 * <p>The send's {@link CompletionHandler} runs on the progress thread (oncrpc4j's reply handlers only
 * log); if the reply cannot be sent it gets an {@code RdmaTransportException}.
 */
public final class RdmaRpcTransport implements RpcTransport {

    private final Responder responder;
    private final Connection connection;
    private final ReplyQueue replyQueue;

    RdmaRpcTransport(Responder responder, Connection connection, ReplyQueue replyQueue) {
        this.responder = Objects.requireNonNull(responder, "responder");
        this.connection = Objects.requireNonNull(connection, "connection");
        this.replyQueue = Objects.requireNonNull(replyQueue, "replyQueue");
    }

    @Override
    public <A> void send(Xdr xdr, A attachment, CompletionHandler<Integer, ? super A> handler) {
        byte[] reply = XdrBytes.of(xdr);
        responder.reply(connection, XdrBytes.xid(reply), reply, error -> {
            if (error == null) {
                handler.completed(reply.length, attachment);
            } else {
                handler.failed(error, attachment);
            }
        });
    }

    @Override
    public ReplyQueue getReplyQueue() {
        return replyQueue;
    }

    @Override
    public boolean isOpen() {
        return connection.state() == Connection.State.CONNECTED;
    }

    @Override
    public InetSocketAddress getLocalSocketAddress() {
        return connection.localSocketAddress(false);
    }

    @Override
    public InetSocketAddress getRemoteSocketAddress() {
        return connection.remoteSocketAddress(false);
    }

    /**
     * Not yet: backward calls (RFC 8167) come with the backchannel.
     *
     * @throws UnsupportedOperationException always
     */
    @Override
    public RpcTransport getPeerTransport() {
        throw new UnsupportedOperationException("the RPC-over-RDMA backchannel (RFC 8167) is not implemented yet");
    }

    /**
     * Refuses TLS as oncrpc4j does without its TLS filter: an AUTH_ERROR the caller answers with.
     *
     * @throws RpcAuthException always
     */
    @Override
    public void startTLS() throws RpcAuthException {
        throw new RpcAuthException("TLS is not available over RPC-over-RDMA",
                new RpcAuthError(RpcAuthStat.AUTH_REJECTEDCRED));
    }

    @Override
    public boolean isTLS() {
        return false;
    }

    @Override
    public String toString() {
        return "RdmaRpcTransport[" + connection + "]";
    }
}
