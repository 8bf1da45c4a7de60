package org.rpcrdma4j.fabric.conformance;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.XdrVoid;

/**
 * A server program that calls back: NULL remembers the transport of the call, for tests to make backward
 * calls on; CALLBACK_ECHO echoes its argument through the client's {@link CallbackProgram} with a
 * synchronous backward call made on the worker, as nfs4j pings the callback path inside CREATE_SESSION.
 */
public final class BackchannelProgram implements RpcDispatchable {

    public static final OncRpcProgram PROGRAM = new OncRpcProgram(0x2000_0167, 1);
    public static final int NULL = 0;
    public static final int CALLBACK_ECHO = 1;
    public static final long TIMEOUT_S = 30;

    public volatile RpcTransport transport;

    @Override
    public void dispatchOncRpcCall(RpcCall call) throws IOException {
        switch (call.getProcedure()) {
            case NULL -> {
                transport = call.getTransport();
                call.reply(XdrVoid.XDR_VOID);
            }
            case CALLBACK_ECHO -> {
                TestProgram.Opaque data = new TestProgram.Opaque();
                call.retrieveCall(data);
                TestProgram.Opaque answer = new TestProgram.Opaque();
                try {
                    callback(call.getTransport()).call(CallbackProgram.ECHO, data, answer, TIMEOUT_S, TimeUnit.SECONDS);
                } catch (TimeoutException e) {
                    throw new IOException(e);
                }
                call.reply(answer);
            }
            default -> call.failProcedureUnavailable();
        }
    }

    /**
     * @param forward the transport of a forward call
     * @return a call to the client's callback program on the same connection, the other way
     */
    public static RpcCall callback(RpcTransport forward) {
        return new RpcCall(CallbackProgram.PROGRAM.getNumber(), CallbackProgram.PROGRAM.getVersion(),
                new RpcAuthTypeNone(), forward.getPeerTransport());
    }
}
