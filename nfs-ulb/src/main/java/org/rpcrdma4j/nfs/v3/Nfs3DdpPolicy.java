package org.rpcrdma4j.nfs.v3;

import java.util.List;
import org.rpcrdma4j.nfs.LinuxReplyBuffer;
import org.rpcrdma4j.nfs.XdrCursor;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.xdr.XdrItem;

/**
 * The RPC-over-RDMA binding of NFS version 3 (RFC 8267 §3, procedures of RFC 1813): the file data of
 * WRITE arguments and READ results and the link target of SYMLINK arguments and READLINK results are
 * DDP-eligible; nothing else is.
 *
 * <p>Reply sizes are the Linux 6.1 client's receive buffers ({@link LinuxReplyBuffer}): each
 * procedure's {@code NFS3_*res_sz} of fs/nfs/nfs3xdr.c, plus the pages of a READ ({@code count}, and
 * a Write chunk of it once the reply may exceed the inline threshold), a READLINK (one page: Linux
 * provides a Reply chunk, no Write chunk, although the target is DDP-eligible) and a READDIR or
 * READDIRPLUS ({@code count}, {@code maxcount}). So this requester asks for the chunks Linux asks for
 * at any inline threshold. As a responder it still reports the READLINK target as DDP-eligible, so a
 * requester that provides a Write chunk for it gets it there.
 *
 * <p>The messages are the caller's own encodings; one that does not parse is a bug and is refused
 * with {@link IllegalArgumentException}. A reply may lack the data of its DDP-eligible result (the
 * requester asks where to splice it): results are located from the bytes before them.
 */
public final class Nfs3DdpPolicy implements DdpPolicy {

    /** NFSPROC3_READLINK. */
    public static final int READLINK = 5;
    /** NFSPROC3_READ. */
    public static final int READ = 6;
    /** NFSPROC3_WRITE. */
    public static final int WRITE = 7;
    /** NFSPROC3_SYMLINK. */
    public static final int SYMLINK = 10;
    /** NFSPROC3_READDIR. */
    public static final int READDIR = 16;
    /** NFSPROC3_READDIRPLUS. */
    public static final int READDIRPLUS = 17;

    /** NFS3_FHSIZE: the largest file handle. */
    static final int FHSIZE = 64;
    /** The largest link target the Linux client provides for (one page). */
    static final int MAXPATHLEN = 4096;
    /**
     * Linux's {@code p_replen} per procedure, in XDR words ({@code NFS3_*res_sz}: a file handle is 17
     * words, a post_op_attr 22, a wcc_data 29; NULL gets the two words of an accepted reply's floor).
     */
    private static final int[] REPLY_WORDS = {
        LinuxReplyBuffer.NULL_REPLY_WORDS, // NULL
        22,     // GETATTR
        30,     // SETATTR
        62,     // LOOKUP
        24,     // ACCESS
        25,     // READLINK, and the target in a page
        27,     // READ, and the data in pages
        34,     // WRITE
        70,     // CREATE
        70,     // MKDIR
        70,     // SYMLINK
        70,     // MKNOD
        30,     // REMOVE
        30,     // RMDIR
        59,     // RENAME
        52,     // LINK
        26,     // READDIR, and the entries in pages
        26,     // READDIRPLUS, likewise
        36,     // FSSTAT
        35,     // FSINFO
        29,     // PATHCONF
        32,     // COMMIT
    };
    private static final int NFS3_OK = 0;
    private static final int TIME_HOW_SET_TO_CLIENT_TIME = 2;
    private static final long UNBOUNDED = Integer.MAX_VALUE;

    @Override
    public List<XdrItem> callPayloads(RpcProcedure procedure, RpcMessage call) {
        XdrCursor args = new XdrCursor(call);
        switch (procedure.procedure()) {
            case WRITE -> {
                args.opaque(FHSIZE);     // file
                args.hyper();            // offset
                args.uint32();           // count
                args.int32();            // stable
                return List.of(args.opaque(UNBOUNDED));
            }
            case SYMLINK -> {
                args.opaque(FHSIZE);     // where.dir
                args.opaque(UNBOUNDED);  // where.name
                skipSattr3(args);        // symlink.symlink_attributes
                return List.of(args.opaque(UNBOUNDED));
            }
            default -> {
                return List.of();
            }
        }
    }

    @Override
    public ReplySize replySize(RpcProcedure procedure, RpcMessage call) {
        int proc = procedure.procedure();
        if (proc < 0 || proc >= REPLY_WORDS.length) {
            return ReplySize.INLINE;
        }
        XdrCursor args = new XdrCursor(call);
        switch (proc) {
            case READ -> {
                args.opaque(FHSIZE);     // file
                args.hyper();            // offset
                long count = args.uint32();
                return new ReplySize(LinuxReplyBuffer.size(call, REPLY_WORDS[READ], count), List.of(count));
            }
            case READLINK -> {
                return new ReplySize(LinuxReplyBuffer.size(call, REPLY_WORDS[READLINK], MAXPATHLEN), List.of());
            }
            case READDIR, READDIRPLUS -> {
                args.opaque(FHSIZE);     // dir
                args.hyper();            // cookie
                args.skip(8);            // cookieverf
                if (proc == READDIRPLUS) {
                    args.uint32();       // dircount
                }
                long count = args.uint32();
                return new ReplySize(LinuxReplyBuffer.size(call, REPLY_WORDS[proc], count), List.of());
            }
            default -> {
                return new ReplySize(LinuxReplyBuffer.size(call, REPLY_WORDS[proc], 0), List.of());
            }
        }
    }

    @Override
    public List<XdrItem> replyPayloads(RpcProcedure procedure, RpcMessage call, RpcMessage reply) {
        if (procedure.procedure() != READ && procedure.procedure() != READLINK) {
            return List.of();
        }
        XdrCursor results = new XdrCursor(reply);
        if (results.int32() != NFS3_OK) {
            return List.of();
        }
        skipPostOpAttr(results);
        if (procedure.procedure() == READ) {
            results.uint32();            // count
            results.bool();              // eof
        }
        return List.of(results.opaqueHeader(UNBOUNDED));
    }

    /** post_op_attr: a boolean, then a fattr3 when it is true. */
    private static void skipPostOpAttr(XdrCursor cursor) {
        if (cursor.bool()) {
            cursor.skip(84);
        }
    }

    /** sattr3 (RFC 1813 §2.6): mode, uid, gid and size each behind a boolean, then atime and mtime. */
    private static void skipSattr3(XdrCursor cursor) {
        for (int field = 0; field < 3; field++) {
            if (cursor.bool()) {
                cursor.uint32();
            }
        }
        if (cursor.bool()) {
            cursor.hyper();
        }
        for (int time = 0; time < 2; time++) {
            if (cursor.int32() == TIME_HOW_SET_TO_CLIENT_TIME) {
                cursor.skip(8);
            }
        }
    }
}
