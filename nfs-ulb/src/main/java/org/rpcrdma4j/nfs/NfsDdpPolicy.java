package org.rpcrdma4j.nfs;

import java.util.List;
import org.rpcrdma4j.nfs.v3.Nfs3DdpPolicy;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.xdr.XdrItem;

/**
 * The upper-layer binding of the NFS program (100003, RFC 8267) for the transport: each version's
 * rules, and nothing DDP-eligible for a version it does not know yet (NFSv4 comes with its COMPOUND
 * walk).
 */
public final class NfsDdpPolicy implements DdpPolicy {

    /** The NFS program number. */
    public static final int PROGRAM = 100003;

    private final DdpPolicy v3 = new Nfs3DdpPolicy();

    @Override
    public List<XdrItem> callPayloads(RpcProcedure procedure, RpcMessage call) {
        return forVersion(procedure).callPayloads(procedure, call);
    }

    @Override
    public ReplySize replySize(RpcProcedure procedure, RpcMessage call) {
        return forVersion(procedure).replySize(procedure, call);
    }

    @Override
    public List<XdrItem> replyPayloads(RpcProcedure procedure, RpcMessage call, RpcMessage reply) {
        return forVersion(procedure).replyPayloads(procedure, call, reply);
    }

    private DdpPolicy forVersion(RpcProcedure procedure) {
        return procedure.program() == PROGRAM && procedure.version() == 3 ? v3 : NONE;
    }
}
