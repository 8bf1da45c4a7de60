package org.rpcrdma4j.nfs.v4;

import java.util.List;
import java.util.Optional;
import org.rpcrdma4j.nfs.LinuxReplyBuffer;
import org.rpcrdma4j.nfs.XdrCursor;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.xdr.XdrItem;

/**
 * The RPC-over-RDMA binding of NFS version 4 (RFC 8267 §5; operations of RFC 7530 and RFC 8881):
 * walks the COMPOUND to find the DDP-eligible items, the data of WRITE arguments and READ results,
 * the link target of CREATE(NF4LNK) arguments and READLINK results.
 *
 * <p>The walk knows the arguments and results of the operations that come before those in practice
 * (SEQUENCE, PUTFH, GETATTR, LOOKUP, ACCESS, ...) and stops at any other: what lies after an operation
 * it cannot step over is not looked at, so such a message moves nothing by DDP. A reply may lack the
 * data of its READ or READLINK result (the requester asks where to splice it): the result is located
 * from the bytes before it.
 *
 * <p>Reply sizes are those of the Linux 6.1 client: a COMPOUND is matched to the Linux procedure that
 * sends it ({@link LinuxNfs4Procedure}, by its operations) and sized as Linux sizes that procedure's
 * receive buffer ({@link LinuxReplyBuffer}: {@code NFS4_dec_*_sz} and the pages of a bulk result), so
 * this requester provides a Reply chunk exactly when Linux does at any inline threshold; a READ gets a
 * Write chunk of its {@code count}. A COMPOUND no Linux procedure sends keeps an estimate that adds a
 * bound per operation: READLINK, READDIR, OPEN, EXCHANGE_ID, an ACL GETATTR and any operation the walk
 * does not know are bounded so that they get a Reply chunk at a 4096-byte threshold.
 */
public final class Nfs4DdpPolicy implements DdpPolicy {

    /** The NULL procedure. */
    static final int NULL = 0;
    /** The COMPOUND procedure. */
    static final int COMPOUND = 1;

    static final int OP_ACCESS = 3;
    static final int OP_CLOSE = 4;
    static final int OP_COMMIT = 5;
    static final int OP_CREATE = 6;
    static final int OP_DELEGRETURN = 8;
    static final int OP_GETATTR = 9;
    static final int OP_GETFH = 10;
    static final int OP_LINK = 11;
    static final int OP_LOOKUP = 15;
    static final int OP_LOOKUPP = 16;
    static final int OP_OPEN = 18;
    static final int OP_PUTFH = 22;
    static final int OP_PUTPUBFH = 23;
    static final int OP_PUTROOTFH = 24;
    static final int OP_READ = 25;
    static final int OP_READDIR = 26;
    static final int OP_READLINK = 27;
    static final int OP_REMOVE = 28;
    static final int OP_RENAME = 29;
    static final int OP_RESTOREFH = 31;
    static final int OP_SAVEFH = 32;
    static final int OP_SETATTR = 34;
    static final int OP_WRITE = 38;
    static final int OP_EXCHANGE_ID = 42;
    static final int OP_CREATE_SESSION = 43;
    static final int OP_DESTROY_SESSION = 44;
    static final int OP_GETDEVICEINFO = 47;
    static final int OP_LAYOUTGET = 50;
    static final int OP_LAYOUTRETURN = 51;
    static final int OP_SECINFO_NO_NAME = 52;
    static final int OP_SEQUENCE = 53;
    static final int OP_DESTROY_CLIENTID = 57;
    static final int OP_RECLAIM_COMPLETE = 58;
    static final int OP_READ_PLUS = 68;
    static final int OP_LISTXATTRS = 74;

    private static final int NFS4_OK = 0;
    private static final int NFS4_FHSIZE = 128;
    private static final int STATEID = 16;
    private static final int SESSIONID = 16;
    private static final int NF4LNK = 5;
    private static final int NF4BLK = 3;
    private static final int NF4CHR = 4;
    private static final int LAYOUTRETURN4_FILE = 1;
    /** FATTR4_ACL: a GETATTR asking for it may return a large ACL. */
    private static final int FATTR4_ACL = 12;
    private static final long UNBOUNDED = Integer.MAX_VALUE;

    /** A result no larger than this: status and a few fixed fields (stateids, change_info, verifiers). */
    private static final int SMALL_RESULT = 128;
    /**
     * A SECINFO_NO_NAME result: status and up to 12 flavors (Linux's NFS_MAX_SECFLAVORS), each with an
     * RPCSEC_GSS OID of up to 32 bytes, a QOP and a service (RFC 8881 §18.45).
     */
    private static final int SECINFO_RESULT = 4 + 4 + 12 * (4 + 4 + 32 + 4 + 4);
    /** Attributes of a GETATTR without ACLs: status, bitmap and the usual attribute values. */
    private static final int GETATTR_RESULT = 640;
    /** What a result of unknown or variable size (ACLs, owners, directory entries) is given. */
    private static final int LARGE_RESULT = 65536;
    /** The largest link target the Linux client provides for (one page). */
    private static final int MAXPATHLEN = 4096;

    @Override
    public List<XdrItem> callPayloads(RpcProcedure procedure, RpcMessage call) {
        if (procedure.procedure() != COMPOUND) {
            return List.of();
        }
        XdrCursor args = compoundArgs(call);
        for (long ops = args.uint32(); ops > 0; ops--) {
            int op = args.int32();
            if (op == OP_WRITE) {
                args.skip(STATEID);
                args.hyper();                    // offset
                args.int32();                    // stable
                return List.of(args.opaque(UNBOUNDED));
            }
            if (op == OP_CREATE) {
                if (args.int32() == NF4LNK) {
                    return List.of(args.opaque(UNBOUNDED));
                }
                return List.of();
            }
            if (!skipArgs(op, args)) {
                return List.of();
            }
        }
        return List.of();
    }

    @Override
    public ReplySize replySize(RpcProcedure procedure, RpcMessage call) {
        if (procedure.procedure() == NULL) {
            return new ReplySize(LinuxReplyBuffer.size(call, LinuxReplyBuffer.NULL_REPLY_WORDS, 0), List.of());
        }
        if (procedure.procedure() != COMPOUND) {
            return ReplySize.INLINE;
        }
        Nfs4Compound compound = Nfs4Compound.read(call);
        Optional<LinuxNfs4Procedure> linux = LinuxNfs4Procedure.of(compound);
        if (linux.isPresent()) {
            LinuxNfs4Procedure p = linux.get();
            long length = LinuxReplyBuffer.size(call, p.replyWords(), p.pageBytes(compound));
            // Linux moves READ data by a Write chunk (XDRBUF_READ); any other reply goes whole.
            return new ReplySize(length, p == LinuxNfs4Procedure.READ ? List.of(compound.count()) : List.of());
        }
        return estimate(call);
    }

    /**
     * Tells which procedure of the Linux 6.1 client sends a COMPOUND, as its reply is sized by.
     *
     * @param call a COMPOUND call
     * @return the procedure's name ({@code NFSPROC4_CLNT_*} without the prefix), or empty when no Linux
     *     procedure sends such a COMPOUND
     * @throws IllegalArgumentException if the call ends inside its operations
     */
    public static Optional<String> linuxProcedure(RpcMessage call) {
        return LinuxNfs4Procedure.of(Nfs4Compound.read(call)).map(Enum::name);
    }

    /** The reply bound of a COMPOUND no Linux procedure sends: a bound per operation, summed. */
    private static ReplySize estimate(RpcMessage call) {
        XdrCursor args = new XdrCursor(call);
        long tag = args.opaque(UNBOUNDED).length();
        args.uint32();                           // minorversion
        // COMPOUND4res: status, the echoed tag and the result count, then each result with its opcode.
        long max = ReplySize.RPC_HEADER_MAX + 4 + 4 + tag + 3 + 4;
        Long readCount = null;
        for (long ops = args.uint32(); ops > 0; ops--) {
            int op = args.int32();
            max += 4;
            switch (op) {
                case OP_READ -> {
                    args.skip(STATEID);
                    args.hyper();                // offset
                    long count = args.uint32();
                    readCount = count;
                    max += 4 + 4 + 4 + count + 3;
                }
                case OP_GETATTR -> max += requestsAcl(args) ? LARGE_RESULT : GETATTR_RESULT;
                case OP_GETFH -> max += 4 + 4 + NFS4_FHSIZE;
                case OP_READLINK -> max += 4 + 4 + MAXPATHLEN;
                case OP_READDIR -> {
                    args.hyper();                // cookie
                    args.skip(8);                // cookieverf
                    args.uint32();               // dircount
                    max += 4 + args.uint32();    // maxcount bounds the whole READDIR4resok
                    skipBitmap(args);
                }
                case OP_OPEN, OP_EXCHANGE_ID -> {
                    max += MAXPATHLEN;
                    return readCount == null ? new ReplySize(max, List.of())
                            : new ReplySize(max, List.of(readCount));
                }
                default -> {
                    // The last operation's arguments need not be stepped over (CREATE_SESSION's are not).
                    if (!skipArgs(op, args) && (ops > 1 || !smallResult(op))) {
                        return new ReplySize(max + LARGE_RESULT, readCount == null ? List.of() : List.of(readCount));
                    }
                    max += op == OP_SECINFO_NO_NAME ? SECINFO_RESULT : SMALL_RESULT;
                }
            }
        }
        return new ReplySize(max, readCount == null ? List.of() : List.of(readCount));
    }

    @Override
    public List<XdrItem> replyPayloads(RpcProcedure procedure, RpcMessage call, RpcMessage reply) {
        if (procedure.procedure() != COMPOUND) {
            return List.of();
        }
        XdrCursor results = new XdrCursor(reply);
        results.int32();                         // the COMPOUND's status: the last result's
        results.opaque(UNBOUNDED);               // tag
        for (long ops = results.uint32(); ops > 0; ops--) {
            int op = results.int32();
            if (results.int32() != NFS4_OK) {
                return List.of();                // a failed operation ends the COMPOUND
            }
            if (op == OP_READ) {
                results.bool();                  // eof
                return List.of(results.opaqueHeader(UNBOUNDED));
            }
            if (op == OP_READLINK) {
                return List.of(results.opaqueHeader(UNBOUNDED));
            }
            if (!skipResult(op, results)) {
                return List.of();
            }
        }
        return List.of();
    }

    /** Steps over COMPOUND4args' tag and minorversion to the operation count. */
    private static XdrCursor compoundArgs(RpcMessage call) {
        XdrCursor args = new XdrCursor(call);
        args.opaque(UNBOUNDED);                  // tag
        args.uint32();                           // minorversion
        return args;
    }

    /** Steps over the arguments of an operation the walk knows; false for any other. */
    static boolean skipArgs(int op, XdrCursor args) {
        switch (op) {
            case OP_PUTROOTFH, OP_PUTPUBFH, OP_SAVEFH, OP_RESTOREFH, OP_GETFH, OP_LOOKUPP, OP_READLINK -> {
            }
            case OP_PUTFH -> args.opaque(NFS4_FHSIZE);
            case OP_SEQUENCE -> args.skip(SESSIONID + 4 * 4);
            case OP_GETATTR -> skipBitmap(args);
            case OP_LOOKUP -> args.opaque(UNBOUNDED);
            case OP_ACCESS -> args.uint32();
            case OP_READ -> args.skip(STATEID + 8 + 4);
            case OP_CLOSE -> args.skip(4 + STATEID);
            case OP_COMMIT -> args.skip(8 + 4);
            case OP_DELEGRETURN -> args.skip(STATEID);
            case OP_LINK, OP_REMOVE -> args.opaque(UNBOUNDED);
            case OP_RENAME -> {
                args.opaque(UNBOUNDED);          // oldname
                args.opaque(UNBOUNDED);          // newname
            }
            case OP_SETATTR -> {
                args.skip(STATEID);
                skipFattr(args);
            }
            case OP_WRITE -> {
                args.skip(STATEID + 8 + 4);      // stateid, offset, stable
                args.opaque(UNBOUNDED);
            }
            case OP_CREATE -> skipCreate(args.int32(), args);
            case OP_LAYOUTRETURN -> {
                args.skip(4 + 4 + 4);            // reclaim, layout type, iomode
                if (args.int32() == LAYOUTRETURN4_FILE) {
                    args.skip(8 + 8 + STATEID);  // offset, length, stateid
                    args.opaque(UNBOUNDED);      // lrf_body
                }
            }
            case OP_DESTROY_SESSION -> args.skip(SESSIONID);
            case OP_SECINFO_NO_NAME, OP_RECLAIM_COMPLETE -> args.uint32();
            case OP_DESTROY_CLIENTID -> args.hyper();
            default -> {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether an operation's result is known to fit {@link #SMALL_RESULT} (or, for SECINFO_NO_NAME,
     * {@link #SECINFO_RESULT}): a status with fixed fields, a change_info4 or an attribute bitmap.
     */
    private static boolean smallResult(int op) {
        return switch (op) {
            case OP_PUTROOTFH, OP_PUTPUBFH, OP_SAVEFH, OP_RESTOREFH, OP_LOOKUPP, OP_PUTFH, OP_SEQUENCE, OP_LOOKUP,
                 OP_ACCESS, OP_CLOSE, OP_COMMIT, OP_DELEGRETURN, OP_LINK, OP_REMOVE, OP_RENAME, OP_SETATTR,
                 OP_WRITE, OP_CREATE, OP_CREATE_SESSION, OP_DESTROY_SESSION, OP_SECINFO_NO_NAME,
                 OP_RECLAIM_COMPLETE, OP_DESTROY_CLIENTID -> true;
            default -> false;
        };
    }

    /** CREATE4args after its object type: the link target or device numbers, the name, the attributes. */
    static void skipCreate(int type, XdrCursor args) {
        if (type == NF4LNK) {
            args.opaque(UNBOUNDED);              // linkdata
        } else if (type == NF4BLK || type == NF4CHR) {
            args.skip(8);                        // specdata4
        }
        args.opaque(UNBOUNDED);                  // objname
        skipFattr(args);                         // createattrs
    }

    /** fattr4: the attribute bitmap, then the attribute values as one opaque. */
    private static void skipFattr(XdrCursor cursor) {
        skipBitmap(cursor);
        cursor.opaque(UNBOUNDED);
    }

    /** Steps over the result of an operation the walk knows, its status already read as OK. */
    private static boolean skipResult(int op, XdrCursor results) {
        switch (op) {
            case OP_PUTFH, OP_PUTROOTFH, OP_PUTPUBFH, OP_SAVEFH, OP_RESTOREFH, OP_LOOKUP, OP_LOOKUPP -> {
            }
            case OP_SEQUENCE -> results.skip(SESSIONID + 5 * 4);
            case OP_GETFH -> results.opaque(NFS4_FHSIZE);
            case OP_GETATTR -> {
                skipBitmap(results);
                results.opaque(UNBOUNDED);       // attrlist4
            }
            case OP_ACCESS -> results.skip(8);
            case OP_CLOSE -> results.skip(STATEID);
            case OP_COMMIT -> results.skip(8);
            default -> {
                return false;
            }
        }
        return true;
    }

    private static void skipBitmap(XdrCursor cursor) {
        long words = cursor.uint32();
        if (words > 8) {
            throw new IllegalArgumentException("bitmap4 of " + words + " words");
        }
        cursor.skip((int) words * 4);
    }

    /** Reads a GETATTR's attr_request and tells whether it asks for the ACL. */
    private static boolean requestsAcl(XdrCursor args) {
        long words = args.uint32();
        if (words > 8) {
            throw new IllegalArgumentException("bitmap4 of " + words + " words");
        }
        boolean acl = false;
        for (int i = 0; i < words; i++) {
            int word = args.int32();
            acl |= i == FATTR4_ACL / 32 && (word & 1 << FATTR4_ACL % 32) != 0;
        }
        return acl;
    }
}
