package org.rpcrdma4j.fabric.conformance;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.XdrVoid;

/** A client's callback service: echo, a reply too large for inline, and a gated procedure that counts concurrency. */
public final class CallbackProgram implements RpcDispatchable {

    public static final OncRpcProgram PROGRAM = new OncRpcProgram(0x4000_0167, 1);
    public static final int ECHO = 1;
    public static final int GATED = 2;
    public static final int BIG_REPLY = 3;

    public final AtomicInteger inProgress = new AtomicInteger();
    public final AtomicInteger maxInProgress = new AtomicInteger();
    public volatile CountDownLatch gate = new CountDownLatch(0);

    @Override
    public void dispatchOncRpcCall(RpcCall call) throws java.io.IOException {
        switch (call.getProcedure()) {
            case ECHO -> {
                TestProgram.Opaque data = new TestProgram.Opaque();
                call.retrieveCall(data);
                call.reply(data);
            }
            case GATED -> {
                TestProgram.pass(gate, inProgress, maxInProgress);
                call.reply(XdrVoid.XDR_VOID);
            }
            case BIG_REPLY -> call.reply(new TestProgram.Opaque(new byte[8000]));
            default -> call.failProcedureUnavailable();
        }
    }
}
