package org.rpcrdma4j.nfs.v2;

import java.util.List;
import org.rpcrdma4j.nfs.XdrCursor;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.xdr.RoundUp;
import org.rpcrdma4j.xdr.XdrItem;

/**
 * The RPC-over-RDMA binding of NFS version 2 (RFC 8267 §3, procedures of RFC 1094 §2.2): the file
 * data of WRITE arguments and READ results and the link target of SYMLINK arguments and READLINK
 * results are DDP-eligible; nothing else is.
 *
 * <p>Reply sizes make the same choices as {@link org.rpcrdma4j.nfs.v3.Nfs3DdpPolicy}, so that both
 * versions ask for the same kind of chunk: a READ gets a Write chunk of its {@code count} once its
 * reply may exceed the inline threshold; READLINK and READDIR get a Reply chunk; every other reply
 * (at most a file handle and a fattr) fits inline. As a responder it still reports the READLINK target
 * as DDP-eligible, so a requester that provides a Write chunk for it gets it there.
 *
 * <p>Version 2 bounds its variable-length items (RFC 1094 §3.5), and the walk enforces those bounds.
 * The messages are the caller's own encodings; one that does not parse is a bug and is refused with
 * {@link IllegalArgumentException}. A reply may lack the data of its DDP-eligible result (the
 * requester asks where to splice it): results are located from the bytes before them.
 */
public final class Nfs2DdpPolicy implements DdpPolicy {

    /** NFSPROC_READLINK. */
    public static final int READLINK = 5;
    /** NFSPROC_READ. */
    public static final int READ = 6;
    /** NFSPROC_WRITE. */
    public static final int WRITE = 8;
    /** NFSPROC_SYMLINK. */
    public static final int SYMLINK = 13;
    /** NFSPROC_READDIR. */
    public static final int READDIR = 16;

    /** FHSIZE: a file handle is fixed-length opaque of this size. */
    static final int FHSIZE = 32;
    /** MAXDATA: the most data a READ or WRITE carries. */
    static final int MAXDATA = 8192;
    /** MAXPATHLEN: the longest path, such as a link target. */
    static final int MAXPATHLEN = 1024;
    /** MAXNAMLEN: the longest file name. */
    static final int MAXNAMLEN = 255;
    /** COOKIESIZE: a READDIR cookie is fixed-length opaque of this size. */
    static final int COOKIESIZE = 4;
    /** fattr (RFC 1094 §2.3.5): type and ten unsigned words, then three timevals of two words. */
    static final int FATTR = 11 * 4 + 3 * 8;
    private static final int NFS_OK = 0;
    /** sattr (RFC 1094 §2.3.6): four unsigned words, then two timevals. */
    private static final int SATTR = 4 * 4 + 2 * 8;

    @Override
    public List<XdrItem> callPayloads(RpcProcedure procedure, RpcMessage call) {
        XdrCursor args = new XdrCursor(call);
        switch (procedure.procedure()) {
            case WRITE -> {
                args.skip(FHSIZE);       // file
                args.uint32();           // beginoffset
                args.uint32();           // offset
                args.uint32();           // totalcount
                return List.of(args.opaque(MAXDATA));
            }
            case SYMLINK -> {
                args.skip(FHSIZE);       // from.dir
                args.opaque(MAXNAMLEN);  // from.name
                XdrItem to = args.opaque(MAXPATHLEN);
                args.skip(SATTR);        // attributes: unlike v3's, they follow the target
                return List.of(to);
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
                args.skip(FHSIZE);       // file
                args.uint32();           // offset
                // The result's data is opaque<MAXDATA> whatever count asks for.
                long count = Math.min(args.uint32(), MAXDATA);
                // readres: status, attributes, then the data's length word and the data.
                long results = 4 + FATTR + 4 + RoundUp.roundUp(count);
                return new ReplySize(ReplySize.RPC_HEADER_MAX + results, List.of(count));
            }
            case READLINK -> {
                return new ReplySize(ReplySize.RPC_HEADER_MAX + 4 + 4 + MAXPATHLEN, List.of());
            }
            case READDIR -> {
                args.skip(FHSIZE);       // dir
                args.skip(COOKIESIZE);   // cookie
                // count bounds the entries; status, the list's closing FALSE and eof come on top.
                return new ReplySize(ReplySize.RPC_HEADER_MAX + 4 + args.uint32() + 4 + 4, List.of());
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
        if (results.int32() != NFS_OK) {
            return List.of();
        }
        if (procedure.procedure() == READ) {
            results.skip(FATTR);         // attributes
            return List.of(results.opaqueHeader(MAXDATA));
        }
        return List.of(results.opaqueHeader(MAXPATHLEN));
    }
}
