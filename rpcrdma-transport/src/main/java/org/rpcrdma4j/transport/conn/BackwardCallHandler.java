package org.rpcrdma4j.transport.conn;

/**
 * What a {@link Requester} hands backward calls (RFC 8167) to: calls the responder sends the other
 * way on the same connection. Called on the progress thread: it must not block (it hands the work to
 * worker threads) and answers each call with {@link Requester#backwardReply}.
 */
@FunctionalInterface
public interface BackwardCallHandler {

    /**
     * A backward call arrived inline.
     *
     * @param xid        the XID from the transport header, from the responder's own XID space
     * @param rpcMessage the whole RPC call message, owned by the handler
     * @return whether it will be answered; a call dropped (one the handler could not decode) is not
     */
    boolean onBackwardCall(int xid, byte[] rpcMessage);
}
