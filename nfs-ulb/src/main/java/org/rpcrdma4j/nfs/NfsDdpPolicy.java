package org.rpcrdma4j.nfs;

import java.util.List;
import org.rpcrdma4j.nfs.acl.NfsAcl3DdpPolicy;
import org.rpcrdma4j.nfs.v2.Nfs2DdpPolicy;
import org.rpcrdma4j.nfs.v3.Nfs3DdpPolicy;
import org.rpcrdma4j.nfs.v4.Nfs4DdpPolicy;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.xdr.XdrItem;

/**
 * The upper-layer binding of the NFS program (100003, RFC 8267) for the transport: the rules of
 * versions 2 and 3 and version 4's COMPOUND walk (all minor versions), NFSACL version 3 (100227),
 * which NFSv3 clients call on the same connection, and nothing DDP-eligible for another program or
 * version.
 */
public final class NfsDdpPolicy implements DdpPolicy {

    /** The NFS program number. */
    public static final int PROGRAM = 100003;

    private final DdpPolicy v2 = new Nfs2DdpPolicy();
    private final DdpPolicy v3 = new Nfs3DdpPolicy();
    private final DdpPolicy acl3 = new NfsAcl3DdpPolicy();
    private final DdpPolicy v4 = new Nfs4DdpPolicy();

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
        if (procedure.program() == NfsAcl3DdpPolicy.PROGRAM) {
            return procedure.version() == 3 ? acl3 : NONE;
        }
        if (procedure.program() != PROGRAM) {
            return NONE;
        }
        return switch (procedure.version()) {
            case 2 -> v2;
            case 3 -> v3;
            case 4 -> v4;
            default -> NONE;
        };
    }
}
