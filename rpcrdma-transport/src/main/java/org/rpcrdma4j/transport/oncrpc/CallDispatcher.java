package org.rpcrdma4j.transport.oncrpc;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcAuthError;
import org.dcache.oncrpc4j.rpc.RpcAuthStat;
import org.dcache.oncrpc4j.rpc.RpcAuthType;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.rpc.RpcException;
import org.dcache.oncrpc4j.rpc.RpcRejectStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs accepted calls with oncrpc4j's own semantics (its {@code RpcDispatcher}): a program is looked
 * up by number and version, missing means PROG_UNAVAIL; the program runs on a worker; an
 * {@link RpcException} becomes a reject with its reply, any other {@link IOException} (including
 * {@link OncRpcException}) GARBAGE_ARGS, a {@link RuntimeException} SYSTEM_ERR.
 *
 * <p>RPCSEC_GSS is refused with AUTH_ERROR / AUTH_BADCRED, as a server without the flavor answers
 * (RFC 5531 §9): oncrpc4j's GSS filter is not part of this transport.
 */
final class CallDispatcher {

    private static final Logger LOG = LoggerFactory.getLogger(CallDispatcher.class);

    private final Map<OncRpcProgram, RpcDispatchable> programs;
    private final ExecutorService workers;

    CallDispatcher(Map<OncRpcProgram, RpcDispatchable> programs, ExecutorService workers) {
        this.programs = programs;
        this.workers = workers;
    }

    /**
     * Looks the program up and hands the call to a worker. Called on the progress thread; never waits.
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
            workers.execute(() -> run(program, call));
        } catch (RejectedExecutionException e) {
            LOG.warn("no worker for {}: {}", call, e.getMessage());
            call.failRpcSystem();
        }
    }

    private static void run(RpcDispatchable program, RpcCall call) {
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
