package org.rpcrdma4j.transport.oncrpc;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.transport.MessageBytes;
import org.rpcrdma4j.transport.RdmaTransportException;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.TransportStatistics;
import org.rpcrdma4j.transport.conn.BackwardReplyHandler;
import org.rpcrdma4j.transport.conn.CallHandler;
import org.rpcrdma4j.transport.conn.Connection;
import org.rpcrdma4j.transport.conn.Responder;
import org.rpcrdma4j.transport.marshal.ProvidedChunks;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves oncrpc4j programs over RPC-over-RDMA: the RDMA counterpart of oncrpc4j's {@code OncRpcSvc}.
 * Build one with {@link RdmaRpcSvcBuilder}.
 *
 * <p>The progress thread hands each call to {@link CallDispatcher}, which parses its header as
 * oncrpc4j's protocol filter does (rejecting a bad RPC version or credential there); the program runs
 * on a worker, or on the progress thread itself with {@link RdmaRpcSvcBuilder#withSameThreadIoStrategy},
 * and its reply goes back through the connection's {@link RdmaRpcTransport}. The call's
 * bytes are not copied: the reply is encoded into a buffer of its own.
 *
 * <p>Programs call the client's callback service through {@code getPeerTransport()} of that
 * transport (RFC 8167 backward calls); the answers are delivered to oncrpc4j's {@link ReplyQueue} on
 * a thread of the service's own, never on a worker, so a program may wait for a backward call inside
 * a forward one (as nfs4j does in CREATE_SESSION) even when every worker waits the same way.
 */
public final class RdmaRpcSvc {

    private static final Logger LOG = LoggerFactory.getLogger(RdmaRpcSvc.class);
    private static final long WAIT_SECONDS = 10;

    private final Map<OncRpcProgram, RpcDispatchable> programs;
    private final Fabric fabric;
    private final Responder responder;
    private final CallDispatcher dispatcher;
    private final ReplyQueue replyQueue = new ReplyQueue();
    private final ExecutorService backwardReplies =
            Executors.newSingleThreadExecutor(DaemonThreads.named("rdma-rpc-svc-backward-replies"));
    private final ReplyDelivery delivery = new ReplyDelivery(replyQueue, backwardReplies);
    private final Map<Connection, RdmaRpcTransport> transports = new ConcurrentHashMap<>();
    private final DdpPolicy policy;
    private final int grant;

    RdmaRpcSvc(Fabric fabric, TransportConfig config, Executor workers,
               Map<OncRpcProgram, RpcDispatchable> initialPrograms, DdpPolicy policy) {
        this.programs = new ConcurrentHashMap<>(initialPrograms);
        this.policy = policy;
        this.grant = config.responderCredits();
        this.dispatcher = new CallDispatcher(programs, workers, fabric.messageBuffers());
        this.fabric = fabric;
        this.responder = new Responder(fabric, config, new Calls(), new BackwardReplies());
    }

    /**
     * Registers a program, also while running.
     *
     * @param program    number and version
     * @param dispatcher the program
     */
    public void register(OncRpcProgram program, RpcDispatchable dispatcher) {
        programs.put(Objects.requireNonNull(program, "program"), Objects.requireNonNull(dispatcher, "dispatcher"));
    }

    /**
     * Unregisters a program; its calls get PROG_UNAVAIL from now on.
     *
     * @param program number and version
     */
    public void unregister(OncRpcProgram program) {
        programs.remove(program);
    }

    /**
     * Starts accepting connections: once it returns, the fabric listens and a client may connect, as
     * oncrpc4j's {@code OncRpcSvc.start()} has bound its port when it returns. On the fabric's progress
     * thread, which cannot wait for itself, the fabric listens as soon as the thread is free.
     *
     * @throws IllegalStateException if the fabric cannot listen: it is closed, has an acceptor already,
     *                               cannot listen on its address, or did not answer in time
     */
    public void start() {
        CompletableFuture<Void> listening = responder.start();
        if (fabric.onProgressThread()) {
            return;
        }
        try {
            listening.get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting to listen", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the fabric cannot listen: " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("the fabric did not listen within " + WAIT_SECONDS + " s", e);
        }
    }

    /**
     * Closes every connection (requesters are told, and fail their pending calls; pending backward
     * calls fail with a CONNECTION error) and stops serving.
     * The fabric and the worker executor stay with their owner.
     *
     * @throws IOException if the close messages could not be sent in time
     */
    public void stop() throws IOException {
        try {
            responder.stop().get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while stopping", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("could not tell every requester the service stopped", e);
        } finally {
            // The failures of pending backward calls go through the reply thread: stop it after them.
            try {
                backwardReplies.execute(replyQueue::shutdown);
            } catch (RejectedExecutionException e) {
                LOG.debug("stopped already");
            }
            backwardReplies.shutdown();
        }
    }

    /**
     * @return what the service holds and has counted: its connections, calls in progress, backward
     *     calls, chunk registrations, bytes copied, messages dropped, RDMA_ERRORs sent, protocol errors
     *     and the connections closed for them ({@link TransportStatistics}); thread-safe
     */
    public TransportStatistics statistics() {
        return new TransportStatistics(responder.connections(),
                responder.pendingChunkWork() + dispatcher.callsOpen(), 0, 0,
                grant, responder.pendingBackwardCalls(), responder.maxOutstandingBackwardCalls(),
                responder.chunkBuffers(), responder.copiedBytes(), responder.dropped(), responder.rdmaErrorsSent(),
                responder.protocolErrors(), responder.closedForErrors(), Map.of());
    }

    /** Receives calls on the progress thread; never waits. */
    private final class Calls implements CallHandler {

        @Override
        public void onCall(Connection connection, int xid, ByteBuffer rpcMessage, ByteBuffer lent,
                           ProvidedChunks provided) {
            RdmaRpcTransport transport = transports.computeIfAbsent(connection,
                    c -> new RdmaRpcTransport(responder, c, replyQueue, policy));
            // Kept before anything can reply: every reply must use the chunks provided.
            Runnable forget = transport.received(rpcMessage, provided);
            if (!dispatcher.accept(rpcMessage, lent, transport)) {
                forget.run();
                responder.protocolError(connection, "an RPC message that is not a call or does not decode");
            }
        }

        @Override
        public void onClosed(Connection connection) {
            transports.remove(connection);
        }
    }

    /** Answers to backward calls, from the progress thread to oncrpc4j's reply queue. */
    private final class BackwardReplies implements BackwardReplyHandler {

        @Override
        public void onBackwardReply(Connection connection, int xid, byte[] rpcMessage) {
            delivery.reply(xid, MessageBytes.of(rpcMessage), null, backwardTransport(connection));
        }

        @Override
        public void onBackwardFailed(Connection connection, int xid, RdmaTransportException error) {
            delivery.fail(xid, error, backwardTransport(connection));
        }

        private RpcTransport backwardTransport(Connection connection) {
            RdmaRpcTransport transport = transports.get(connection);
            return transport == null ? null : transport.getPeerTransport();
        }
    }
}
