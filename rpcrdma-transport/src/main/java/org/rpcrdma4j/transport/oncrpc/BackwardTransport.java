package org.rpcrdma4j.transport.oncrpc;

import java.nio.channels.CompletionHandler;
import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.rpcrdma4j.transport.conn.Connection;
import org.rpcrdma4j.transport.conn.Responder;

/**
 * The server side's {@link RpcTransport} for backward calls (RFC 8167) on one connection: what
 * {@link RdmaRpcTransport#getPeerTransport()} gives a program, so that
 * {@code new RpcCall(cbProg, cbVers, auth, call.getTransport().getPeerTransport()).call(...)} calls the
 * client's callback service on the same connection, as oncrpc4j's peer transport does over TCP.
 *
 * <p>{@link #send} hands the call to the {@link Responder}, which sends it inline when a backward
 * credit is free (RFC 8167); a call over the inline threshold, or on a closed connection,
 * fails at once with an {@code RdmaTransportException}. Answers are matched by XID in the service's
 * {@link ReplyQueue}, in this side's own XID space. The peer of this transport is the forward one.
 */
final class BackwardTransport extends BackwardDirection {

    private final Responder responder;
    private final Connection connection;
    private final ReplyQueue replyQueue;

    BackwardTransport(Responder responder, Connection connection, ReplyQueue replyQueue, RdmaRpcTransport forward) {
        super(forward);
        this.responder = responder;
        this.connection = connection;
        this.replyQueue = replyQueue;
    }

    @Override
    public <A> void send(Xdr xdr, A attachment, CompletionHandler<Integer, ? super A> handler) {
        byte[] call = XdrBytes.of(xdr);
        CallSend.send(call.length, () -> responder.backwardCall(connection, XdrBytes.xid(call), call), attachment,
                handler);
    }

    @Override
    public ReplyQueue getReplyQueue() {
        return replyQueue;
    }


    @Override
    public String toString() {
        return "BackwardTransport[" + connection + "]";
    }
}
