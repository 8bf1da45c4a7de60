package org.rpcrdma4j.nfs.acl;

import java.util.List;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.xdr.XdrItem;

/**
 * The RPC-over-RDMA binding of NFSACL version 3 (program 100227), the POSIX ACL side protocol of NFSv3
 * that Linux calls on every {@code ls -l}. No item of its calls or replies is DDP-eligible (RFC 8267
 * §4.2), and Linux moves none: a SETACL call over the inline threshold travels whole in a
 * Position-zero Read chunk, and a GETACL reply, which can hold two ACLs of up to 1024 entries, gets a
 * Reply chunk, as the Linux client provides one for every GETACL.
 */
public final class NfsAcl3DdpPolicy implements DdpPolicy {

    /** The NFSACL program number. */
    public static final int PROGRAM = 100227;
    /** ACLPROC3_GETACL. */
    public static final int GETACL = 1;
    /** ACLPROC3_SETACL. */
    public static final int SETACL = 2;

    /** status, then a post_op_attr carrying a fattr3 of 84 bytes. */
    private static final int STATUS_AND_ATTRIBUTES = 4 + 4 + 84;
    /** NFS_ACL_MAX_ENTRIES of Linux's nfsacl: the most entries one ACL may carry. */
    private static final int MAX_ENTRIES = 1024;
    /** One encoded ACL: its entry count, the array length, then type, id and permissions per entry. */
    private static final int MAX_ACL = 4 + 4 + 12 * MAX_ENTRIES;

    @Override
    public List<XdrItem> callPayloads(RpcProcedure procedure, RpcMessage call) {
        return List.of();
    }

    @Override
    public ReplySize replySize(RpcProcedure procedure, RpcMessage call) {
        if (procedure.procedure() == GETACL) {
            // GETACL3resok: attributes, mask, the access ACL and the default ACL.
            return new ReplySize(ReplySize.RPC_HEADER_MAX + STATUS_AND_ATTRIBUTES + 4 + 2L * MAX_ACL, List.of());
        }
        return ReplySize.INLINE;     // NULL; SETACL3res is a status and a post_op_attr
    }

    @Override
    public List<XdrItem> replyPayloads(RpcProcedure procedure, RpcMessage call, RpcMessage reply) {
        return List.of();
    }
}
