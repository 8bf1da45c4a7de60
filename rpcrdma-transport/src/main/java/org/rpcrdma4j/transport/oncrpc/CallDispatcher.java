package org.rpcrdma4j.transport.oncrpc;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcAuthError;
import org.dcache.oncrpc4j.rpc.RpcAuthStat;
import org.dcache.oncrpc4j.rpc.RpcAuthType;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.rpc.RpcException;
import org.dcache.oncrpc4j.rpc.RpcMessageType;
import org.dcache.oncrpc4j.rpc.RpcRejectStatus;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.rpcrdma4j.fabric.MessageBuffers;
import org.rpcrdma4j.transport.CallStepEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decodes received calls as oncrpc4j's protocol filter does ({@link #accept}) and runs them with
 * oncrpc4j's own semantics (its {@code RpcDispatcher}): a program is looked
 * up by number and version, missing means PROG_UNAVAIL; the program runs on a worker (or, with the
 * same-thread strategy, at once on the thread that dispatches); an
 * {@link RpcException} becomes a reject with its reply, any other {@link IOException} (including
 * {@link OncRpcException}) GARBAGE_ARGS, a {@link RuntimeException} SYSTEM_ERR.
 *
 * <p>RPCSEC_GSS is refused with AUTH_ERROR / AUTH_BADCRED, as a server without the flavor answers
 * (RFC 5531 §9): oncrpc4j's GSS filter is not part of this transport.
 */
final class CallDispatcher {

    private static final Logger LOG = LoggerFactory.getLogger(CallDispatcher.class);

    /** Runs each program at once on the thread that dispatches its call: oncrpc4j's SAME_THREAD strategy. */
    static final Executor SAME_THREAD = Runnable::run;

    private final Map<OncRpcProgram, RpcDispatchable> programs;
    private final Executor workers;
    private final MessageBuffers replyBuffers;
    /** Calls accepted whose {@link CallXdr} is not closed yet: a program may still run for each. */
    private final AtomicInteger callsOpen = new AtomicInteger();

    /**
     * @param programs     the programs by number and version
     * @param workers      where programs run; {@link #SAME_THREAD} runs them on the dispatching thread
     * @param replyBuffers where the buffers replies are encoded into come from ({@link CallXdr})
     */
    CallDispatcher(Map<OncRpcProgram, RpcDispatchable> programs, Executor workers, MessageBuffers replyBuffers) {
        this.programs = programs;
        this.workers = workers;
        this.replyBuffers = replyBuffers;
    }

    /**
     * Decodes a received call's RPC header as oncrpc4j's protocol filter does: a bad RPC version or
     * credential is rejected with its reply here; a good call is {@linkplain #dispatch dispatched}.
     * Called on the progress thread; never waits.
     *
     * @param message   the whole RPC message between its position and limit, decoded in place; its reply
     *                  is encoded into a buffer of its own ({@link CallXdr}), so its bytes stay as they
     *                  came until then
     * @param lent      the fabric's receive buffer the message lies in, given back once the call is done
     *                  (its reply sent, or at once if it gets none); or null
     * @param transport where the call's reply goes
     * @return false if the message is not a call or cannot be decoded: it gets no reply
     */
    boolean accept(ByteBuffer message, ByteBuffer lent, RpcTransport transport) {
        callsOpen.incrementAndGet();
        Xdr xdr = new CallXdr(message, lent, replyBuffers, callsOpen::decrementAndGet);
        RpcCall call;
        try {
            xdr.beginDecoding();
            int xid = xdr.xdrDecodeInt();
            if (xdr.xdrDecodeInt() != RpcMessageType.CALL) {
                // Replies were routed apart by the transport (RFC 8167); oncrpc4j drops anything else.
                LOG.debug("dropped a non-call RPC message xid 0x{} on {}", Integer.toHexString(xid), transport);
                xdr.close();
                return false;
            }
            call = new RpcCall(xid, xdr, transport);
            try {
                call.accept();
            } catch (RpcException e) {
                call.reject(e.getStatus(), e.getRpcReply());
                LOG.info("RPC request rejected: {}", e.getMessage());
                return true;
            }
        } catch (IOException e) {
            LOG.info("dropped an RPC call on {} that could not be decoded: {}", transport, e.getMessage());
            xdr.close();
            return false;
        }
        dispatch(call);
        return true;
    }

    /**
     * @return calls received and not done: not yet replied to, or with a reply not yet sent (or failed),
     *     whether their connection is still up or not; a program may still be running for each
     */
    int callsOpen() {
        return callsOpen.get();
    }

    /**
     * Looks the program up and hands the call to a worker. Called on the progress thread; never waits
     * (but for what the program does, with {@link #SAME_THREAD}).
     *
     * @param call an accepted call
     */
    void dispatch(RpcCall call) {
        if (call.getCredential().type() == RpcAuthType.RPCGSS_SEC) {
            call.reject(RpcRejectStatus.AUTH_ERROR, new RpcAuthError(RpcAuthStat.AUTH_BADCRED));
            return;
        }
        RpcDispatchable program = programs.get(new OncRpcProgram(call.getProgram(), call.getProgramVersion()));
        if (program == null) {
            call.failProgramUnavailable();
            return;
        }
        try {
            CallStepEvent.mark(call.getXid(), CallStepEvent.CALL_DISPATCHED);
            workers.execute(() -> run(program, call));
        } catch (RejectedExecutionException e) {
            LOG.warn("no worker for {}: {}", call, e.getMessage());
            call.failRpcSystem();
        }
    }

    private static void run(RpcDispatchable program, RpcCall call) {
        CallStepEvent.mark(call.getXid(), CallStepEvent.PROGRAM_STARTED);
        try {
            program.dispatchOncRpcCall(call);
        } catch (RpcException e) {
            call.reject(e.getStatus(), e.getRpcReply());
            LOG.warn("Failed to process RPC request: {}", e.getMessage());
        } catch (IOException e) {
            call.failRpcGarbage();
            LOG.warn("Failed to process RPC request: {}", e.getMessage());
        } catch (RuntimeException e) {
            LOG.error("Failed to process RPC request:", e);
            call.failRpcSystem();
        }
    }
}
