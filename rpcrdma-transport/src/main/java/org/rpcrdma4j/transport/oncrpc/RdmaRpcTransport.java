package org.rpcrdma4j.transport.oncrpc;

import java.nio.ByteBuffer;
import java.nio.channels.CompletionHandler;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.rpcrdma4j.transport.CallStepEvent;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.transport.MessageBytes;
import org.rpcrdma4j.transport.conn.Connection;
import org.rpcrdma4j.transport.conn.Responder;
import org.rpcrdma4j.transport.marshal.ProvidedChunks;
import org.rpcrdma4j.transport.marshal.RpcHeaders;
import org.rpcrdma4j.xdr.XdrItem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server side's {@link RpcTransport} for one connection: {@link #send} hands a reply to the
 * {@link Responder}, which conveys it from the progress thread. Between a call's arrival and its
 * reply this class keeps, keyed by XID, the chunks the call provided and, when they include Write
 * chunks, the call's procedure and bytes: at the reply it asks the program's
 * {@link DdpPolicy#replyPayloads} where the DDP-eligible results sit (as nfsd tells svcrdma with
 * {@code svc_rdma_result_payload}). The call is kept as it came, not copied: oncrpc4j encodes the
 * reply into a buffer of its own ({@code CallXdr}). A reply without Write chunks moves no result by
 * RDMA, so the policy is not asked and nothing of the call is kept.
 *
 * <p>{@link #getPeerTransport()} is the same connection in the backward direction (RFC 8167): a
 * {@link BackwardTransport} on which programs call the client's callback service.
 *
 * <p>A reply is taken from oncrpc4j's {@link Xdr} without copying it (a READ result encoded shallow
 * is RDMA-Written from the program's own buffer) and its buffers are disposed once it is conveyed,
 * as oncrpc4j's TCP transport disposes them once written: a program must not change a buffer it
 * encoded until then, and may reuse one it lent through a Grizzly buffer's dispose.
 *
 * <p>The send's {@link CompletionHandler} runs on the progress thread (oncrpc4j's reply handlers only
 * log); if the reply cannot be sent it gets an {@code RdmaTransportException}.
 */
final class RdmaRpcTransport extends ForwardDirection {

    private static final Logger LOG = LoggerFactory.getLogger(RdmaRpcTransport.class);

    private final Responder responder;
    private final Connection connection;
    private final ReplyQueue replyQueue;
    private final DdpPolicy policy;
    private final Map<Integer, PendingCall> pending = new ConcurrentHashMap<>();
    private final BackwardTransport backward;

    /**
     * A call waiting for its reply: what it provided for the reply, and what the policy needs to place
     * results in the Write chunks provided.
     *
     * @param provided  the chunks provided
     * @param procedure the procedure called; {@code null} when the policy need not be asked
     * @param call      the call as it came; {@code null} when the policy need not be asked
     */
    private record PendingCall(ProvidedChunks provided, DdpPolicy.RpcProcedure procedure,
                               DdpPolicy.RpcMessage call) {
    }

    RdmaRpcTransport(Responder responder, Connection connection, ReplyQueue replyQueue,
                     DdpPolicy policy) {
        this.responder = Objects.requireNonNull(responder, "responder");
        this.connection = Objects.requireNonNull(connection, "connection");
        this.replyQueue = Objects.requireNonNull(replyQueue, "replyQueue");
        this.policy = Objects.requireNonNull(policy, "policy");
        this.backward = new BackwardTransport(responder, connection, replyQueue, this);
    }

    /**
     * Remembers what the reply to a call needs, until the reply.
     *
     * @param call     the whole call, between position and limit, kept (not copied) when the policy
     *                 will be asked; its bytes must not change until the reply is sent
     * @param provided the chunks it provided for the reply
     * @return forgets the call, for one that will get no reply (it could not be decoded)
     */
    Runnable received(ByteBuffer call, ProvidedChunks provided) {
        // The reply carries the call's XID (RFC 5531 §9); a message without one is never answered.
        int xid = call.remaining() < 4 ? 0 : call.getInt(call.position());
        CallStepEvent.mark(xid, CallStepEvent.CALL_RECEIVED);
        PendingCall pendingCall = new PendingCall(provided, null, null);
        if (!provided.writeList().isEmpty()) {
            MessageBytes bytes = MessageBytes.of(List.of(call));
            try {
                pendingCall = new PendingCall(provided, RpcHeaders.procedure(bytes), RpcHeaders.call(bytes));
            } catch (IllegalArgumentException e) {
                // A call the transport cannot parse has no DDP-eligible results: the reply goes whole.
                LOG.debug("xid 0x{}: {}; its reply goes without Write chunk data", Integer.toHexString(xid),
                        e.getMessage());
            }
        }
        PendingCall kept = pendingCall;
        pending.put(xid, kept);
        return () -> pending.remove(xid, kept);
    }

    @Override
    Connection connection() {
        return connection;
    }


    @Override
    public <A> void send(Xdr xdr, A attachment, CompletionHandler<Integer, ? super A> handler) {
        MessageBytes reply = XdrBytes.view(xdr);
        int xid = XdrBytes.xid(reply);
        CallStepEvent.mark(xid, CallStepEvent.REPLY_SUBMITTED);
        PendingCall call = pending.remove(xid);
        ProvidedChunks provided = call == null ? ProvidedChunks.NONE : call.provided();
        responder.reply(connection, xid, reply, CallXdr.takeReply(xdr), provided, payloads(call, reply), error -> {
            try {
                if (error == null) {
                    handler.completed(reply.length(), attachment);
                } else {
                    handler.failed(error, attachment);
                }
            } finally {
                // Done with the buffers: dispose them, as oncrpc4j's TCP transport (Grizzly) does once written.
                xdr.close();
            }
        });
    }

    private List<XdrItem> payloads(PendingCall call, MessageBytes reply) {
        if (call == null || call.procedure() == null) {
            return List.of();
        }
        try {
            return policy.replyPayloads(call.procedure(), call.call(), RpcHeaders.reply(reply));
        } catch (IllegalArgumentException e) {
            // A call the transport cannot parse has no DDP-eligible results: the reply goes whole.
            return List.of();
        }
    }

    @Override
    public ReplyQueue getReplyQueue() {
        return replyQueue;
    }

    /**
     * @return the same connection in the backward direction (RFC 8167), to call the client's callback
     *     service on; its replies are matched in this transport's {@link ReplyQueue}
     */
    @Override
    public RpcTransport getPeerTransport() {
        return backward;
    }

    @Override
    public String toString() {
        return "RdmaRpcTransport[" + connection + "]";
    }
}
