package org.rpcrdma4j.transport.marshal;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.rpcrdma4j.fabric.MessageBuffers;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.transport.MessageBytes;
import org.rpcrdma4j.xdr.HeaderEncoder;
import org.rpcrdma4j.xdr.ReducedStream;
import org.rpcrdma4j.xdr.ReplyChunk;
import org.rpcrdma4j.xdr.RpcRdmaHeader;
import org.rpcrdma4j.xdr.Segment;
import org.rpcrdma4j.xdr.WriteChunk;
import org.rpcrdma4j.xdr.XdrItem;

/**
 * How one reply travels: the responder's decision, made as Linux {@code svc_rdma_sendto} makes it.
 *
 * <ol>
 * <li>DDP-eligible results ({@link DdpPolicy#replyPayloads}) go, in order, into the Write chunks the
 *     call provided, one each, by RDMA Write of their data only (no pad); each chunk is echoed with
 *     its segments' lengths set to the bytes written, an unused chunk with zero lengths (RFC 8166
 *     §3.4.6, §4.3.2). Results beyond the Write chunks stay inline.</li>
 * <li>When the call provided a Reply chunk the rest of the reply is written into it and the message
 *     is RDMA_NOMSG, whatever its size: Linux always uses the Reply chunk then (RFC 8166 §3.5.3). The
 *     Reply chunk is echoed with the bytes written per segment, filling segments in order.</li>
 * <li>Otherwise the rest goes inline in RDMA_MSG.</li>
 * </ol>
 * A result larger than its Write chunk, a reply larger than the Reply chunk, or an inline reply over
 * the requester's threshold cannot be sent: {@link #of} returns {@code null} and the responder answers
 * RDMA_ERROR / ERR_CHUNK (RFC 8166 §4.5), never a truncated reply.
 *
 * <p>The data of a result is written from where the reply holds it, not copied, when it lies in one
 * of the reply's buffers (oncrpc4j's shallow encoding puts a READ result in its own). The inline part
 * is copied once, into the message sent or, with a Reply chunk, into the buffer written from.
 *
 * @param sources the bytes the RDMA Writes come from, each position 0 to limit: each moved result,
 *                then the reduced reply when a Reply chunk carries it; one registration each
 * @param writes  the RDMA Writes, empty when the reply goes inline
 * @param message the transport header and inline part to send after the writes, position 0
 */
public record ReplyPlan(List<ByteBuffer> sources, List<Write> writes, ByteBuffer message) {

    /**
     * The room an encoder leaves before a reply it encodes into a message buffer: a short message's
     * transport header ({@link HeaderEncoder#NO_CHUNKS_LENGTH}), so that such a reply is sent where it
     * was encoded.
     */
    public static final int HEADER_ROOM = HeaderEncoder.NO_CHUNKS_LENGTH;

    /**
     * One RDMA Write.
     *
     * @param source       the index of its bytes in {@link #sources}
     * @param sourceOffset where they start there
     * @param target       the requester's segment, with the byte count as length
     */
    public record Write(int source, long sourceOffset, Segment target) {
    }

    /**
     * Plans a reply.
     *
     * @param xid       the call's XID
     * @param credits   the grant to carry
     * @param reply     the whole RPC reply
     * @param encodedIn a message buffer the reply was encoded into, from {@link #HEADER_ROOM} on, so
     *                  that a short message is sent from it without a copy (it is then the plan's
     *                  message); or {@code null}
     * @param provided  what the call provided
     * @param payloads  the reply's DDP-eligible results, in stream order
     * @param threshold the requester's inline receive threshold
     * @param buffers   where the message to send is allocated: the fabric's message buffers
     * @param copied    counts the bytes copied to build the plan
     * @return the plan, or {@code null} if the reply cannot be conveyed (answer ERR_CHUNK)
     */
    public static ReplyPlan of(int xid, int credits, MessageBytes reply, ByteBuffer encodedIn, ProvidedChunks provided,
                               List<XdrItem> payloads, int threshold, MessageBuffers buffers, LongAdder copied) {
        List<WriteChunk> writeList = provided.writeList();
        if (writeList.isEmpty() && provided.replyChunk() == null) {
            return shortMessage(xid, credits, reply, encodedIn, threshold, buffers, copied);
        }
        List<XdrItem> moved = payloads.subList(0, Math.min(payloads.size(), writeList.size()));
        ReducedStream reduced;
        try {
            reduced = ReducedStream.reduce(reply.length(), moved);
        } catch (IllegalArgumentException e) {
            return null;
        }
        List<ByteBuffer> sources = new ArrayList<>();
        List<Write> writes = new ArrayList<>();
        List<WriteChunk> echoedWrites = new ArrayList<>(writeList.size());
        for (int c = 0; c < writeList.size(); c++) {
            WriteChunk chunk = writeList.get(c);
            XdrItem item = c < moved.size() ? moved.get(c) : new XdrItem(0, 0);
            if (item.length() > chunk.length()) {
                return null;
            }
            if (!reply.inOneBuffer((int) item.offset(), (int) item.length())) {
                copied.add(item.length());
            }
            echoedWrites.add(new WriteChunk(fill(chunk.segments(),
                    reply.contiguous((int) item.offset(), (int) item.length()), sources, writes)));
        }
        int inlineLength = (int) reduced.inlineLength();
        ReplyChunk replyChunk = provided.replyChunk();
        if (replyChunk != null) {
            if (inlineLength > replyChunk.length()) {
                return null;
            }
            ByteBuffer inline = ByteBuffer.allocate(inlineLength);
            copyInline(reply, reduced, inline, 0, copied);
            ReplyChunk echoed = new ReplyChunk(fill(replyChunk.segments(), inline, sources, writes));
            RpcRdmaHeader header = RpcRdmaHeader.nomsg(xid, credits, null, echoedWrites, echoed);
            if (HeaderEncoder.encodedLength(header) > threshold) {
                return null;
            }
            ByteBuffer message = buffers.allocate(HeaderEncoder.encodedLength(header));
            HeaderEncoder.encode(header, message, 0);
            return new ReplyPlan(sources, writes, message);
        }
        RpcRdmaHeader header = RpcRdmaHeader.msg(xid, credits, null, echoedWrites, null);
        int headerLength = HeaderEncoder.encodedLength(header);
        if (headerLength + inlineLength > threshold) {
            return null;
        }
        ByteBuffer message = buffers.allocate(headerLength + inlineLength);
        HeaderEncoder.encode(header, message, 0);
        copyInline(reply, reduced, message, headerLength, copied);
        return new ReplyPlan(sources, writes, message);
    }

    /**
     * @return a reply whose call provided no chunks: all of it inline, in the buffer it was encoded
     *     into when there is one, or null if it does not fit
     */
    private static ReplyPlan shortMessage(int xid, int credits, MessageBytes reply, ByteBuffer encodedIn,
                                          int threshold, MessageBuffers buffers, LongAdder copied) {
        RpcRdmaHeader header = RpcRdmaHeader.msg(xid, credits, List.of(), List.of(), null);
        int length = HEADER_ROOM + reply.length();
        if (length > threshold) {
            return null;
        }
        ByteBuffer message;
        if (encodedIn != null) {
            message = encodedIn.clear().limit(length);
        } else {
            message = buffers.allocate(length);
            reply.get(0, message, HEADER_ROOM, reply.length());
            copied.add(reply.length());
        }
        HeaderEncoder.encode(header, message, 0);
        return new ReplyPlan(List.of(), List.of(), message);
    }

    /** Copies the reply's inline regions, in order, to {@code target} from {@code at}. */
    private static void copyInline(MessageBytes reply, ReducedStream reduced, ByteBuffer target, int at,
                                   LongAdder copied) {
        for (ReducedStream.Region region : reduced.regions()) {
            if (region.kind() == ReducedStream.Kind.INLINE) {
                reply.get((int) region.streamOffset(), target, at + (int) region.inlineOffset(), (int) region.length());
                copied.add(region.length());
            }
        }
    }

    /**
     * Fills segments in order with the bytes of {@code source}, added to {@code sources} when it has
     * any; returns them echoed.
     */
    private static List<Segment> fill(List<Segment> segments, ByteBuffer source, List<ByteBuffer> sources,
                                      List<Write> writes) {
        int index = sources.size();
        if (source.hasRemaining()) {
            sources.add(source);
        }
        List<Segment> echoed = new ArrayList<>(segments.size());
        long left = source.remaining();
        long at = 0;
        for (Segment segment : segments) {
            long bytes = Math.min(left, segment.unsignedLength());
            Segment written = new Segment(segment.handle(), (int) bytes, segment.offset());
            if (bytes > 0) {
                writes.add(new Write(index, at, written));
            }
            echoed.add(written);
            left -= bytes;
            at += bytes;
        }
        return echoed;
    }
}
