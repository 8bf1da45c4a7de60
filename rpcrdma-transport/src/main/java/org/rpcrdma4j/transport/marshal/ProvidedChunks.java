package org.rpcrdma4j.transport.marshal;

import java.util.ArrayList;
import java.util.List;
import org.rpcrdma4j.xdr.ReadSegment;
import org.rpcrdma4j.xdr.ReplyChunk;
import org.rpcrdma4j.xdr.Segment;
import org.rpcrdma4j.xdr.WriteChunk;

/**
 * What a requester provided in a call for its reply (RFC 8166 §3.4.6, §3.5.3), and the handle its
 * reply may invalidate: the responder keeps it from the call until the reply is sent.
 *
 * @param writeList        the Write chunks, in order; empty when none
 * @param replyChunk       the Reply chunk, or {@code null}
 * @param invalidateHandle the requester's handle the reply invalidates remotely (Send with
 *                         Invalidate), or 0 for a plain Send
 */
public record ProvidedChunks(List<WriteChunk> writeList, ReplyChunk replyChunk, int invalidateHandle) {

    /** A call that provided nothing: its reply goes inline, in a plain Send. */
    public static final ProvidedChunks NONE = new ProvidedChunks(List.of(), null);

    /**
     * Copies the list.
     *
     * @param writeList        the Write chunks
     * @param replyChunk       the Reply chunk, or {@code null}
     * @param invalidateHandle the handle to invalidate with the reply, or 0
     */
    public ProvidedChunks {
        writeList = List.copyOf(writeList);
    }

    /**
     * Chunks whose reply invalidates nothing remotely.
     *
     * @param writeList  the Write chunks
     * @param replyChunk the Reply chunk, or {@code null}
     */
    public ProvidedChunks(List<WriteChunk> writeList, ReplyChunk replyChunk) {
        this(writeList, replyChunk, 0);
    }

    /**
     * What a call provided, and the handle its reply invalidates as Linux's svcrdma picks it
     * ({@code svc_rdma_get_inv_rkey}): when the connection may invalidate remotely (the requester
     * offered it in its RFC 8797 private data and the fabric can), the one handle every segment of
     * the call's Read list, Write list and Reply chunk carries; none when the segments carry two or
     * more handles or there are none. A handle of 0 counts as none, as svcrdma counts it.
     *
     * @param readList           the call's Read list
     * @param writeList          its Write list
     * @param replyChunk         its Reply chunk, or {@code null}
     * @param remoteInvalidation whether the connection may invalidate remotely
     * @return the chunks and the handle
     */
    public static ProvidedChunks of(List<ReadSegment> readList, List<WriteChunk> writeList, ReplyChunk replyChunk,
                                    boolean remoteInvalidation) {
        return new ProvidedChunks(writeList, replyChunk,
                remoteInvalidation ? soleHandle(readList, writeList, replyChunk) : 0);
    }

    private static int soleHandle(List<ReadSegment> readList, List<WriteChunk> writeList, ReplyChunk replyChunk) {
        List<Segment> segments = new ArrayList<>();
        for (ReadSegment read : readList) {
            segments.add(read.segment());
        }
        for (WriteChunk chunk : writeList) {
            segments.addAll(chunk.segments());
        }
        if (replyChunk != null) {
            segments.addAll(replyChunk.segments());
        }
        int handle = 0;
        for (Segment segment : segments) {
            if (handle == 0) {
                handle = segment.handle();
            } else if (segment.handle() != handle) {
                return 0;
            }
        }
        return handle;
    }
}
