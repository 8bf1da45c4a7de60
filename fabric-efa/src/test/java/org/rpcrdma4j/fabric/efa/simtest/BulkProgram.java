package org.rpcrdma4j.fabric.efa.simtest;

import java.io.IOException;
import java.util.List;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.XdrInt;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.rpcrdma4j.fabric.conformance.ChunkProgram;
import org.rpcrdma4j.fabric.conformance.TestProgram.Opaque;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.xdr.RoundUp;
import org.rpcrdma4j.xdr.XdrItem;

/**
 * A program whose bulk data moves by RDMA, and its {@link DdpPolicy} (the same on both sides):
 * <ul>
 * <li>NULL;</li>
 * <li>ECHO: opaque data back, not DDP-eligible (inline, for small data);</li>
 * <li>PUT: DDP-eligible opaque argument (a Read chunk the server pulls by RDMA Read), its length back;</li>
 * <li>GET(length): DDP-eligible opaque result (a Write chunk the server fills by RDMA Write).</li>
 * </ul>
 */
final class BulkProgram implements RpcDispatchable {

    static final OncRpcProgram PROGRAM = new OncRpcProgram(0x2000_0200, 1);
    static final int NULL = 0;
    static final int ECHO = 1;
    static final int PUT = 2;
    static final int GET = 3;
    private static final int REPLY_OVERHEAD = 64;

    /** @return a call of this program on a client's transport */
    static RpcCall on(RpcTransport transport) {
        return new RpcCall(PROGRAM.getNumber(), PROGRAM.getVersion(), new RpcAuthTypeNone(), transport);
    }

    @Override
    public void dispatchOncRpcCall(RpcCall call) throws IOException {
        switch (call.getProcedure()) {
            case NULL -> call.reply(XdrVoid.XDR_VOID);
            case ECHO -> {
                Opaque data = new Opaque();
                call.retrieveCall(data);
                call.reply(data);
            }
            case PUT -> {
                Opaque data = new Opaque();
                call.retrieveCall(data);
                call.reply(new XdrInt(data.bytes.length));
            }
            case GET -> {
                XdrInt length = new XdrInt();
                call.retrieveCall(length);
                call.reply(new Opaque(ChunkProgram.pattern(length.intValue())));
            }
            default -> call.failProcedureUnavailable();
        }
    }

    /** Where PUT's argument and GET's result sit, and how long ECHO's reply can be. */
    static final DdpPolicy POLICY = DdpPolicy.forProgram(PROGRAM.getNumber(), PROGRAM.getVersion(), new DdpPolicy() {
        @Override
        public List<XdrItem> callPayloads(RpcProcedure procedure, RpcMessage call) {
            return procedure.procedure() == PUT ? List.of(new XdrItem(call.bodyOffset() + 4, word(call))) : List.of();
        }

        @Override
        public ReplySize replySize(RpcProcedure procedure, RpcMessage call) {
            return switch (procedure.procedure()) {
                case ECHO -> new ReplySize(REPLY_OVERHEAD + RoundUp.roundUp(word(call)), List.of());
                case GET -> new ReplySize(REPLY_OVERHEAD + RoundUp.roundUp(word(call)), List.of((long) word(call)));
                default -> ReplySize.INLINE;
            };
        }

        @Override
        public List<XdrItem> replyPayloads(RpcProcedure procedure, RpcMessage call, RpcMessage reply) {
            return procedure.procedure() == GET && reply.bodyOffset() + 4 <= reply.bytes().length()
                    ? List.of(new XdrItem(reply.bodyOffset() + 4, word(reply))) : List.of();
        }

        private int word(RpcMessage message) {
            return message.bytes().getInt(message.bodyOffset());
        }
    });
}
