package org.rpcrdma4j.nfs.v3;

import java.util.List;
import org.rpcrdma4j.nfs.XdrCursor;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.xdr.RoundUp;
import org.rpcrdma4j.xdr.XdrItem;

/**
 * The RPC-over-RDMA binding of NFS version 3 (RFC 8267 §3, procedures of RFC 1813): the file data of
 * WRITE arguments and READ results and the link target of SYMLINK arguments and READLINK results are
 * DDP-eligible; nothing else is.
 *
 * <p>Reply sizes follow the Linux client, so that this requester asks for the chunks Linux asks for:
 * a READ gets a Write chunk of its {@code count} once its reply may exceed the inline threshold;
 * READLINK, READDIR and READDIRPLUS get a Reply chunk (Linux provides no Write chunk for READLINK
 * although its result is DDP-eligible); every other reply fits inline. As a responder it still
 * reports the READLINK target as DDP-eligible, so a requester that provides a Write chunk for it gets
 * it there.
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
    /** nfsstat3 plus a post_op_attr carrying a fattr3 of 84 bytes. */
    static final int STATUS_AND_ATTRIBUTES = 4 + 4 + 84;
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
        XdrCursor args = new XdrCursor(call);
        switch (procedure.procedure()) {
            case READ -> {
                args.opaque(FHSIZE);     // file
                args.hyper();            // offset
                long count = args.uint32();
                // READ3resok: attributes, count, eof, then the data's length word and the data.
                long results = STATUS_AND_ATTRIBUTES + 3 * 4 + RoundUp.roundUp(count);
                return new ReplySize(ReplySize.RPC_HEADER_MAX + results, List.of(count));
            }
            case READLINK -> {
                return new ReplySize(ReplySize.RPC_HEADER_MAX + STATUS_AND_ATTRIBUTES + 4 + MAXPATHLEN, List.of());
            }
            case READDIR -> {
                args.opaque(FHSIZE);     // dir
                args.hyper();            // cookie
                args.skip(8);            // cookieverf
                return new ReplySize(ReplySize.RPC_HEADER_MAX + 4 + args.uint32(), List.of());
            }
            case READDIRPLUS -> {
                args.opaque(FHSIZE);     // dir
                args.hyper();            // cookie
                args.skip(8);            // cookieverf
                args.uint32();           // dircount
                return new ReplySize(ReplySize.RPC_HEADER_MAX + 4 + args.uint32(), List.of());
            }
            default -> {
                return ReplySize.INLINE;
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
