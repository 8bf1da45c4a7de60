package org.rpcrdma4j.transport.oncrpc;

import java.nio.channels.CompletionHandler;
import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.rpcrdma4j.transport.RdmaTransportException;
import org.rpcrdma4j.transport.conn.Requester;

/**
 * The client side's {@link RpcTransport} for the backward direction (RFC 8167): the transport of the
 * calls a callback service gets, on which their replies go back inline through
 * {@link Requester#backwardReply} (RFC 8167). The client is only the responder of this
 * direction, so a call sent here fails at once; forward calls go on {@link #getPeerTransport()}, the
 * client's forward transport of the same connection.
 */
final class CallbackTransport extends BackwardDirection {

    private final Requester requester;
    private final Runnable replied;

    /**
     * @param requester the connection's requester
     * @param forward   the client's forward transport
     * @param replied   run once per reply when its send ends, either way
     */
    CallbackTransport(Requester requester, RpcTransport forward, Runnable replied) {
        super(forward);
        this.requester = requester;
        this.replied = replied;
    }

    @Override
    public <A> void send(Xdr xdr, A attachment, CompletionHandler<Integer, ? super A> handler) {
        byte[] reply = XdrBytes.of(xdr);
        if (XdrBytes.isCall(reply)) {
            handler.failed(new RdmaTransportException(RdmaTransportException.Scope.CALL, "a client makes no"
                    + " backward calls (RFC 8167: they go from server to client); call on getPeerTransport()"),
                    attachment);
            return;
        }
        requester.backwardReply(XdrBytes.xid(reply), reply, error -> {
            xdr.close();
            replied.run();
            if (error == null) {
                handler.completed(reply.length, attachment);
            } else {
                handler.failed(error, attachment);
            }
        });
    }

    /** @return the forward direction's reply queue: this direction has no calls of its own to match */
    @Override
    public ReplyQueue getReplyQueue() {
        return forward.getReplyQueue();
    }

}
