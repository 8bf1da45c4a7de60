package org.rpcrdma4j.xdr;

import java.util.List;
import java.util.Objects;

/**
 * An RPC-over-RDMA Version One transport header (RFC 8166 §4.1): the four fixed words and either the
 * three chunk lists (RDMA_MSG, RDMA_NOMSG) or an error body (RDMA_ERROR).
 *
 * <p>The reserved procedures RDMA_MSGP and RDMA_DONE cannot be represented: they are never sent.
 * The version is kept as given: an RDMA_ERROR echoes the version of the message that failed (RFC
 * 8166 §4.5), so it may carry any value; a decoded RDMA_MSG or RDMA_NOMSG header always has version 1.
 *
 * @param xid        the transaction ID, equal to the RPC message's XID
 * @param vers       the RPC-over-RDMA version, u32
 * @param credits    the credit value: requested by a requester, granted by a responder, u32
 * @param proc       RDMA_MSG, RDMA_NOMSG or RDMA_ERROR
 * @param readList   the Read list in wire order (empty for RDMA_ERROR)
 * @param writeList  the Write list (empty for RDMA_ERROR)
 * @param replyChunk the Reply chunk, or {@code null} when absent
 * @param error      the error body for RDMA_ERROR, otherwise {@code null}
 */
public record RpcRdmaHeader(int xid, int vers, int credits, Proc proc, List<ReadSegment> readList,
                            List<WriteChunk> writeList, ReplyChunk replyChunk, RdmaError error) {

    /** The only version this codec speaks (RFC 8166 §4.2.2). */
    public static final int VERSION = 1;

    /** The four fixed words: xid, vers, credits, proc. */
    public static final int FIXED_LENGTH = 16;

    /**
     * Validates the combination of procedure, lists and error body.
     *
     * @param xid        the transaction ID
     * @param vers       the version
     * @param credits    the credit value
     * @param proc       RDMA_MSG, RDMA_NOMSG or RDMA_ERROR
     * @param readList   the Read list, or null for none
     * @param writeList  the Write list, or null for none
     * @param replyChunk the Reply chunk, or null
     * @param error      the error body, exactly when proc is RDMA_ERROR
     */
    public RpcRdmaHeader {
        Objects.requireNonNull(proc, "proc");
        readList = readList == null ? List.of() : List.copyOf(readList);
        writeList = writeList == null ? List.of() : List.copyOf(writeList);
        switch (proc) {
            case RDMA_MSG, RDMA_NOMSG -> {
                if (error != null) {
                    throw new IllegalArgumentException(proc + " carries no error body");
                }
            }
            case RDMA_ERROR -> {
                if (error == null) {
                    throw new IllegalArgumentException("RDMA_ERROR needs an error body");
                }
                if (!readList.isEmpty() || !writeList.isEmpty() || replyChunk != null) {
                    throw new IllegalArgumentException("RDMA_ERROR carries no chunk lists");
                }
            }
            default -> throw new IllegalArgumentException(proc + " is reserved and never sent (RFC 8166 §4.6)");
        }
    }

    /**
     * @param xid        the transaction ID
     * @param credits    the credit value
     * @param readList   the Read list in wire order
     * @param writeList  the Write list
     * @param replyChunk the Reply chunk, or null
     * @return an RDMA_MSG header of version 1
     */
    public static RpcRdmaHeader msg(int xid, int credits, List<ReadSegment> readList, List<WriteChunk> writeList,
                                    ReplyChunk replyChunk) {
        return new RpcRdmaHeader(xid, VERSION, credits, Proc.RDMA_MSG, readList, writeList, replyChunk, null);
    }

    /**
     * @param xid        the transaction ID
     * @param credits    the credit value
     * @param readList   the Read list in wire order
     * @param writeList  the Write list
     * @param replyChunk the Reply chunk, or null
     * @return an RDMA_NOMSG header of version 1
     */
    public static RpcRdmaHeader nomsg(int xid, int credits, List<ReadSegment> readList, List<WriteChunk> writeList,
                                      ReplyChunk replyChunk) {
        return new RpcRdmaHeader(xid, VERSION, credits, Proc.RDMA_NOMSG, readList, writeList, replyChunk, null);
    }

    /**
     * @param xid     the XID of the failing message
     * @param vers    the version to report: RFC 8166 §4.5 echoes the failing message's version
     * @param credits the credit value
     * @param error   the error body
     * @return an RDMA_ERROR header
     */
    public static RpcRdmaHeader error(int xid, int vers, int credits, RdmaError error) {
        return new RpcRdmaHeader(xid, vers, credits, Proc.RDMA_ERROR, null, null, null, error);
    }

    /**
     * Groups the Read list into Read chunks: one per distinct position, ordered by position, each with
     * its segments in list order (RFC 8166 §3.4.5).
     *
     * @return the Read chunks, empty when the Read list is
     */
    public List<ReadChunk> readChunks() {
        return ReadChunk.group(readList);
    }

    /** @return true when the header carries a Reply chunk */
    public boolean hasReplyChunk() {
        return replyChunk != null;
    }

    /** @return the credit value as an unsigned number */
    public long unsignedCredits() {
        return Integer.toUnsignedLong(credits);
    }

    /** @return the XID as an unsigned number */
    public long unsignedXid() {
        return Integer.toUnsignedLong(xid);
    }
}
