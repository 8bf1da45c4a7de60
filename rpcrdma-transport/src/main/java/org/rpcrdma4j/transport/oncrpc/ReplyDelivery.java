package org.rpcrdma4j.transport.oncrpc;

import java.io.IOException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.dcache.oncrpc4j.rpc.OncRpcAcceptedException;
import org.dcache.oncrpc4j.rpc.OncRpcRejectedException;
import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcReply;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.rpcrdma4j.transport.MessageBytes;
import org.rpcrdma4j.transport.RdmaTransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers the answers of one direction's calls to oncrpc4j's {@link ReplyQueue}, matched by XID, as
 * oncrpc4j's protocol filter does: a denied reply fails the call with
 * {@link OncRpcRejectedException}, an accepted one that is not SUCCESS with
 * {@link OncRpcAcceptedException}, a transport failure with its {@link RdmaTransportException}.
 * Handlers run on the given executor: a reply thread, or the caller's thread (the progress thread)
 * for oncrpc4j's {@code SAME_THREAD} strategy. It must not be the executor of programs that wait for
 * these answers, or they could wait for themselves.
 */
final class ReplyDelivery {

    private static final Logger LOG = LoggerFactory.getLogger(ReplyDelivery.class);

    private final ReplyQueue replyQueue;
    private final Executor executor;

    /**
     * @param replyQueue where the calls wait for their answers
     * @param executor   where the answers are delivered
     */
    ReplyDelivery(ReplyQueue replyQueue, Executor executor) {
        this.replyQueue = replyQueue;
        this.executor = executor;
    }

    /**
     * @param xid        the XID of the call
     * @param rpcMessage the whole RPC reply message, decoded in place
     * @param on         the transport the call went on, which oncrpc4j hands the reply handler
     */
    void reply(int xid, MessageBytes rpcMessage, RpcTransport on) {
        hand(() -> {
            var handler = replyQueue.get(xid);
            if (handler == null) {
                return;
            }
            try {
                Xdr xdr = new Xdr(XdrBytes.buffer(rpcMessage));
                xdr.beginDecoding();
                xdr.xdrDecodeInt();
                xdr.xdrDecodeInt();
                RpcReply reply = new RpcReply(xid, xdr, on);
                if (!reply.isAccepted()) {
                    handler.failed(new OncRpcRejectedException(reply.getRejectStatus()), on);
                } else if (reply.getAcceptStatus() != 0) {
                    handler.failed(new OncRpcAcceptedException(reply.getAcceptStatus()), on);
                } else {
                    handler.completed(reply, on);
                }
            } catch (IOException e) {
                handler.failed(e, on);
            }
        });
    }

    /**
     * @param xid   the XID of the call
     * @param error why it failed
     * @param on    the transport the call went on
     */
    void fail(int xid, RdmaTransportException error, RpcTransport on) {
        hand(() -> {
            var handler = replyQueue.get(xid);
            if (handler != null) {
                handler.failed(error, on);
            }
        });
    }

    private void hand(Runnable work) {
        try {
            executor.execute(work);
        } catch (RejectedExecutionException e) {
            LOG.debug("shut down; answer dropped");
        }
    }
}
