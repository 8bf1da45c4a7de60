package org.rpcrdma4j.transport.oncrpc;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.CompletionHandler;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.dcache.oncrpc4j.rpc.OncRpcAcceptedException;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.OncRpcRejectedException;
import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcAuthError;
import org.dcache.oncrpc4j.rpc.RpcAuthException;
import org.dcache.oncrpc4j.rpc.RpcAuthStat;
import org.dcache.oncrpc4j.rpc.RpcReply;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.transport.Fabric;
import org.rpcrdma4j.transport.FabricAddress;
import org.rpcrdma4j.transport.RdmaTransportException;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.conn.Connection;
import org.rpcrdma4j.transport.conn.ReplyHandler;
import org.rpcrdma4j.transport.conn.Requester;
import org.rpcrdma4j.transport.marshal.ChunkCounters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An RPC-over-RDMA connection for oncrpc4j client code: {@link #transport()} is the
 * {@link RpcTransport} for {@code new RpcCall(prog, vers, auth, transport)}, so existing clients run
 * unchanged. Replies are matched by XID through oncrpc4j's {@link ReplyQueue}, which also times
 * calls out with the timeouts the caller gives {@code RpcCall.call}.
 *
 * <p>One client per fabric. Reply handlers run on a single thread the client owns, never on the
 * progress thread.
 */
public final class RdmaRpcClient implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RdmaRpcClient.class);
    /** How long {@link #close} waits for the progress thread to fail the pending calls. */
    private static final long CLOSE_WAIT_S = 10;

    private final Requester requester;
    private final ReplyQueue replyQueue = new ReplyQueue();
    private final ExecutorService replies = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "rdma-rpc-client-replies");
        thread.setDaemon(true);
        return thread;
    });
    private final Transport transport = new Transport();
    private final AtomicBoolean closing = new AtomicBoolean();
    private volatile Connection connection;

    private RdmaRpcClient(Fabric fabric, TransportConfig config, DdpPolicy policy) {
        this.requester = new Requester(fabric, config, policy, new Replies());
    }

    /**
     * Connects to a server for calls without DDP-eligible items ({@link DdpPolicy#NONE}).
     *
     * @param fabric  this client's fabric; the client becomes its listener but does not own it
     * @param server  the server's fabric address
     * @param config  inline sizes and the credits to request
     * @param timeout how long to wait for the server's ACCEPT
     * @return the connected client
     * @throws IOException if the server did not accept in time or closed the connection
     */
    public static RdmaRpcClient connect(Fabric fabric, FabricAddress server, TransportConfig config, Duration timeout)
            throws IOException {
        return connect(fabric, server, config, DdpPolicy.NONE, timeout);
    }

    /**
     * Connects to a server and waits until the private data is exchanged.
     *
     * @param fabric  this client's fabric; the client becomes its listener but does not own it
     * @param server  the server's fabric address
     * @param config  inline sizes, segment size and the credits to request
     * @param policy  the DDP policy of the program called: which call items go in Read chunks, which
     *                results get Write chunks and when a Reply chunk is needed
     * @param timeout how long to wait for the server's ACCEPT
     * @return the connected client
     * @throws IOException if the server did not accept in time or closed the connection
     */
    public static RdmaRpcClient connect(Fabric fabric, FabricAddress server, TransportConfig config, DdpPolicy policy,
                                        Duration timeout) throws IOException {
        RdmaRpcClient client = new RdmaRpcClient(fabric, config, Objects.requireNonNull(policy, "policy"));
        try {
            client.connection = client.requester.connect(Objects.requireNonNull(server, "server"))
                    .get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            return client;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            client.close();
            throw new IOException("interrupted while connecting to " + server, e);
        } catch (ExecutionException | TimeoutException e) {
            client.close();
            throw new RdmaTransportException(RdmaTransportException.Scope.CONNECTION,
                    "could not connect to " + server + " within " + timeout + ": " + e);
        }
    }

    /** @return the transport to make calls on */
    public RpcTransport transport() {
        return transport;
    }

    /** @return calls sent and not yet answered */
    public int outstandingCalls() {
        return requester.outstandingCalls();
    }

    /** @return calls waiting for a credit */
    public int waitingCalls() {
        return requester.waitingCalls();
    }

    /** @return the most calls that were ever outstanding at once */
    public int maxOutstandingCalls() {
        return requester.maxOutstandingCalls();
    }

    /** @return how this client's calls and their replies travelled */
    public ChunkCounters shapes() {
        return requester.shapes();
    }

    /** @return chunk buffers registered for unanswered calls; 0 when nothing leaks */
    public int chunkBuffers() {
        return requester.chunkBuffers();
    }

    /** @return how many calls may be outstanding now */
    public int creditLimit() {
        return requester.creditLimit();
    }

    /** Closes the connection; pending calls fail with a CONNECTION error. */
    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        // The failures of pending calls go through the reply thread: stop it only once they are queued.
        try {
            requester.close().get(CLOSE_WAIT_S, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("the progress thread did not close the connection within {} s", CLOSE_WAIT_S);
        }
        replies.execute(replyQueue::shutdown);
        replies.shutdown();
    }

    /** Answers from the progress thread go to the reply thread, as oncrpc4j's protocol filter handles them. */
    private final class Replies implements ReplyHandler {

        @Override
        public void onReply(int xid, byte[] rpcMessage) {
            hand(() -> {
                CompletionHandler<RpcReply, RpcTransport> handler = replyQueue.get(xid);
                if (handler == null) {
                    return;
                }
                try {
                    Xdr xdr = new Xdr(rpcMessage);
                    xdr.beginDecoding();
                    xdr.xdrDecodeInt();
                    xdr.xdrDecodeInt();
                    RpcReply reply = new RpcReply(xid, xdr, transport);
                    if (!reply.isAccepted()) {
                        handler.failed(new OncRpcRejectedException(reply.getRejectStatus()), transport);
                    } else if (reply.getAcceptStatus() != 0) {
                        handler.failed(new OncRpcAcceptedException(reply.getAcceptStatus()), transport);
                    } else {
                        handler.completed(reply, transport);
                    }
                } catch (OncRpcException e) {
                    handler.failed(e, transport);
                } catch (IOException e) {
                    handler.failed(e, transport);
                }
            });
        }

        @Override
        public void onFailed(int xid, RdmaTransportException error) {
            hand(() -> {
                CompletionHandler<RpcReply, RpcTransport> handler = replyQueue.get(xid);
                if (handler != null) {
                    handler.failed(error, transport);
                }
            });
        }

        private void hand(Runnable work) {
            try {
                replies.execute(work);
            } catch (RejectedExecutionException e) {
                LOG.debug("client closed; answer dropped");
            }
        }
    }

    /** The client's {@link RpcTransport}. */
    private final class Transport implements RpcTransport {

        @Override
        public <A> void send(Xdr xdr, A attachment, CompletionHandler<Integer, ? super A> handler) {
            byte[] call = XdrBytes.of(xdr);
            try {
                requester.submit(XdrBytes.xid(call), call);
                handler.completed(call.length, attachment);
            } catch (RdmaTransportException e) {
                // oncrpc4j's send handler fails the registered reply with this, so the call fails now.
                handler.failed(e, attachment);
            }
        }

        @Override
        public ReplyQueue getReplyQueue() {
            return replyQueue;
        }

        @Override
        public boolean isOpen() {
            Connection current = connection;
            return current != null && current.state() == Connection.State.CONNECTED;
        }

        @Override
        public InetSocketAddress getLocalSocketAddress() {
            return connection.localSocketAddress(true);
        }

        @Override
        public InetSocketAddress getRemoteSocketAddress() {
            return connection.remoteSocketAddress(true);
        }

        @Override
        public RpcTransport getPeerTransport() {
            throw new UnsupportedOperationException("the RPC-over-RDMA backchannel (RFC 8167) is not implemented yet");
        }

        @Override
        public void startTLS() throws RpcAuthException {
            throw new RpcAuthException("TLS is not available over RPC-over-RDMA",
                    new RpcAuthError(RpcAuthStat.AUTH_REJECTEDCRED));
        }

        @Override
        public boolean isTLS() {
            return false;
        }
    }
}
