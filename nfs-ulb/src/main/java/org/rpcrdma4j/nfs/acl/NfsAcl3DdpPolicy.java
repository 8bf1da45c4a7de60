package org.rpcrdma4j.nfs.acl;

import java.util.List;
import org.rpcrdma4j.nfs.LinuxReplyBuffer;
import org.rpcrdma4j.nfs.XdrCursor;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.xdr.XdrItem;

/**
 * The RPC-over-RDMA binding of NFSACL version 3 (program 100227), the POSIX ACL side protocol of NFSv3
 * that Linux calls on every {@code ls -l}. No item of its calls or replies is DDP-eligible (RFC 8267
 * §4.2), and Linux moves none: a SETACL call over the inline threshold travels whole in a
 * Position-zero Read chunk, and a GETACL reply, which can hold two ACLs of up to 1024 entries, gets a
 * Reply chunk. Reply sizes are the Linux 6.1 client's receive buffers ({@link LinuxReplyBuffer},
 * fs/nfs/nfs3xdr.c): a GETACL that asks for an ACL or a default ACL adds seven pages for them, so
 * gets a Reply chunk at any inline threshold up to 28 KiB, as Linux's does.
 */
public final class NfsAcl3DdpPolicy implements DdpPolicy {

    /** The NFSACL program number. */
    public static final int PROGRAM = 100227;
    /** ACLPROC3_NULL. */
    public static final int NULL = 0;
    /** ACLPROC3_GETACL. */
    public static final int GETACL = 1;
    /** ACLPROC3_SETACL. */
    public static final int SETACL = 2;

    /** NFS3_FHSIZE: the largest file handle. */
    private static final int FHSIZE = 64;

    /** NFS_ACL and NFS_DFACL: the mask bits that ask for the ACLs themselves, not only their counts. */
    private static final int ACL_DATA = 0x0001 | 0x0004;
    /** ACL3_getaclres_sz: status, post_op_attr, mask, room for two ACLs of 5 entries, page pad. */
    private static final int GETACL_REPLY_WORDS = 1 + 22 + 1 + 34 + 1;
    /** ACL3_setaclres_sz: status and post_op_attr. */
    private static final int SETACL_REPLY_WORDS = 1 + 22;
    /** NFSACL_MAXPAGES: two ACLs of NFS_ACL_MAX_ENTRIES (1024) entries, in 4096-byte pages. */
    private static final int ACL_PAGE_BYTES = 7 * 4096;

    @Override
    public List<XdrItem> callPayloads(RpcProcedure procedure, RpcMessage call) {
        return List.of();
    }

    @Override
    public ReplySize replySize(RpcProcedure procedure, RpcMessage call) {
        return switch (procedure.procedure()) {
            case GETACL -> {
                XdrCursor args = new XdrCursor(call);
                args.opaque(FHSIZE);                             // fh
                long pages = (args.int32() & ACL_DATA) != 0 ? ACL_PAGE_BYTES : 0;
                yield new ReplySize(LinuxReplyBuffer.size(call, GETACL_REPLY_WORDS, pages), List.of());
            }
            case SETACL -> new ReplySize(LinuxReplyBuffer.size(call, SETACL_REPLY_WORDS, 0), List.of());
            case NULL -> new ReplySize(LinuxReplyBuffer.size(call, LinuxReplyBuffer.NULL_REPLY_WORDS, 0), List.of());
            default -> ReplySize.INLINE;
        };
    }

    @Override
    public List<XdrItem> replyPayloads(RpcProcedure procedure, RpcMessage call, RpcMessage reply) {
        return List.of();
    }
}
