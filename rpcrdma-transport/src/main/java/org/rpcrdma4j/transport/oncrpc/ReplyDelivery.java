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
import org.rpcrdma4j.transport.marshal.ChunkBufferPool;
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
 *
 * <p>A reply whose chunk data lies in leased memory is decoded from a {@link ReplyXdr}, which gives
 * the memory back to the pool when oncrpc4j has decoded the result. When no handler decodes it (the
 * call timed out meanwhile, or the reply is rejected or not SUCCESS, which oncrpc4j hands the caller
 * as an exception without the reply) the memory goes back as soon as the handler returns. A handler
 * that keeps the {@code RpcReply} and never decodes it leaves the memory to the garbage collector.
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
     * @param chunkMemory the lease of the memory its chunk data lies in, or {@code null}
     * @param on         the transport the call went on, which oncrpc4j hands the reply handler
     */
    void reply(int xid, MessageBytes rpcMessage, ChunkBufferPool.Lease chunkMemory, RpcTransport on) {
        boolean handed = hand(() -> {
            var handler = replyQueue.get(xid);
            if (handler == null) {
                giveBack(chunkMemory);
                return;
            }
            try {
                Xdr xdr = chunkMemory == null ? new Xdr(XdrBytes.buffer(rpcMessage))
                        : new ReplyXdr(XdrBytes.buffer(rpcMessage), chunkMemory);
                xdr.beginDecoding();
                xdr.xdrDecodeInt();
                xdr.xdrDecodeInt();
                RpcReply reply = new RpcReply(xid, xdr, on);
                if (!reply.isAccepted()) {
                    giveBack(chunkMemory);
                    handler.failed(new OncRpcRejectedException(reply.getRejectStatus()), on);
                } else if (reply.getAcceptStatus() != 0) {
                    giveBack(chunkMemory);
                    handler.failed(new OncRpcAcceptedException(reply.getAcceptStatus()), on);
                } else {
                    handler.completed(reply, on);
                }
            } catch (IOException e) {
                // The reply's header did not decode: no one got the reply.
                giveBack(chunkMemory);
                handler.failed(e, on);
            }
        });
        if (!handed) {
            giveBack(chunkMemory);
        }
    }

    private static void giveBack(ChunkBufferPool.Lease chunkMemory) {
        if (chunkMemory != null) {
            chunkMemory.giveBack();
        }
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

    /** @return whether the executor took the work */
    private boolean hand(Runnable work) {
        try {
            executor.execute(work);
            return true;
        } catch (RejectedExecutionException e) {
            LOG.debug("shut down; answer dropped");
            return false;
        }
    }
}
