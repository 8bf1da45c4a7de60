package org.rpcrdma4j.transport.oncrpc;

import java.io.EOFException;
import java.net.SocketAddress;
import java.nio.channels.CompletionHandler;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntConsumer;
import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcReply;
import org.dcache.oncrpc4j.rpc.RpcTransport;

/**
 * oncrpc4j's {@link ReplyQueue} that also reports the XID of each call it times out, so that the
 * transport can release what the call holds (its chunk memory) instead of waiting for an answer
 * nobody will read. oncrpc4j times a call out by failing its handler with a {@link TimeoutException}.
 */
final class TimeoutReplyQueue extends ReplyQueue {

    private final IntConsumer onTimeout;

    /** @param onTimeout called with the XID of a call that timed out, on oncrpc4j's timer thread */
    TimeoutReplyQueue(IntConsumer onTimeout) {
        this.onTimeout = onTimeout;
    }

    @Override
    public void registerKey(int xid, SocketAddress addr, CompletionHandler<RpcReply, RpcTransport> callback,
                            long timeout, TimeUnit timeoutUnit) throws EOFException {
        super.registerKey(xid, addr, timeout > 0 && timeoutUnit != null ? new Reporting(xid, callback) : callback,
                timeout, timeoutUnit);
    }

    /** The caller's handler, reporting its call first if it times out. */
    private final class Reporting implements CompletionHandler<RpcReply, RpcTransport> {

        private final int xid;
        private final CompletionHandler<RpcReply, RpcTransport> callback;

        Reporting(int xid, CompletionHandler<RpcReply, RpcTransport> callback) {
            this.xid = xid;
            this.callback = callback;
        }

        @Override
        public void completed(RpcReply reply, RpcTransport transport) {
            callback.completed(reply, transport);
        }

        @Override
        public void failed(Throwable error, RpcTransport transport) {
            if (error instanceof TimeoutException) {
                onTimeout.accept(xid);
            }
            callback.failed(error, transport);
        }
    }
}
