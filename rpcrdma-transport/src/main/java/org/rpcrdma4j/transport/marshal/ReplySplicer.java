package org.rpcrdma4j.transport.marshal;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.transport.MessageBytes;
import org.rpcrdma4j.transport.RdmaTransportException;
import org.rpcrdma4j.xdr.Proc;
import org.rpcrdma4j.xdr.RoundUp;
import org.rpcrdma4j.xdr.RpcRdmaHeaderFlyweight;
import org.rpcrdma4j.xdr.Segment;
import org.rpcrdma4j.xdr.WriteChunk;
import org.rpcrdma4j.xdr.XdrItem;

/**
 * The requester's rebuild of a reply that used chunks, before oncrpc4j decodes it (Linux
 * {@code rpcrdma_inline_fixup} / {@code rpcrdma_reply_handler}):
 * <ul>
 * <li>RDMA_NOMSG: the reply is the bytes written into the Reply chunk, segment by segment as echoed
 *     (RFC 8166 §3.5.3; Linux echoes the bytes written per segment);</li>
 * <li>RDMA_MSG: the reply is the inline part;</li>
 * <li>then the bytes of each used Write chunk (echoed lengths: the bytes actually written, RFC 8166
 *     §3.4.6) go back in, followed by zeros for their XDR pad, which is never moved. Where: the
 *     {@link DdpPolicy} is asked for the results of the reply rebuilt so far, and result {@code i}'s
 *     offset places chunk {@code i}.</li>
 * </ul>
 * The echoed chunks are checked against those provided: same count, same handles and offsets, no
 * more bytes than provided. Chunk data is not copied: the reply holds views of the call's chunk
 * memory, which goes with the reply to its reader once the call has released it
 * ({@link ChunkedCall#replyLease}), who gives it back to the pool after decoding.
 *
 * <p>Two steps, as the received message and the chunk memory are ready at different times: the
 * message is read at once ({@link #echo}), since its buffer is posted again when it has been handled;
 * the chunk memory only once the call's chunks are deregistered ({@link #reply}), since a fabric may
 * copy what the responder wrote into it until then.
 */
public final class ReplySplicer {

    /**
     * What a reply's transport header echoes of the call's chunks, checked, and its inline part.
     *
     * @param inline       the inline part of an RDMA_MSG reply, copied out; {@code null} for RDMA_NOMSG
     * @param replyWritten for RDMA_NOMSG, the bytes written into each segment of the Reply chunk
     * @param writeWritten the bytes written into each segment of each Write chunk
     */
    public record Echo(MessageBytes inline, long[] replyWritten, List<long[]> writeWritten) {
    }

    private ReplySplicer() {
    }

    /**
     * Reads what the reply's header echoes and its inline part, before its receive buffer is posted
     * again.
     *
     * @param call   the call answered
     * @param header the reply's transport header, wrapped
     * @param buffer the received message
     * @param copied counts the bytes copied: the inline part of an RDMA_MSG reply
     * @return the echo, checked against the chunks the call provided
     * @throws RdmaTransportException CALL if the echoed chunks do not match those provided
     */
    public static Echo echo(ChunkedCall call, RpcRdmaHeaderFlyweight header, ByteBuffer buffer, LongAdder copied)
            throws RdmaTransportException {
        MessageBytes inline = null;
        long[] replyWritten = null;
        if (header.proc() == Proc.RDMA_NOMSG) {
            if (!header.hasReplyChunk() || call.header().replyChunk() == null) {
                throw error(call, "RDMA_NOMSG reply without a Reply chunk");
            }
            List<Segment> provided = call.header().replyChunk().segments();
            if (header.replySegmentCount() != provided.size()) {
                throw error(call, "the Reply chunk echoed " + header.replySegmentCount() + " segments, not "
                        + provided.size());
            }
            replyWritten = new long[provided.size()];
            for (int s = 0; s < replyWritten.length; s++) {
                replyWritten[s] = echoed(call, provided.get(s), header.replyHandle(s), header.replyLength(s),
                        header.replyOffset(s));
            }
        } else {
            if (header.hasReplyChunk()) {
                throw error(call, "RDMA_MSG reply with a Reply chunk");
            }
            byte[] bytes = new byte[header.payloadLength()];
            buffer.get(header.payloadOffset(), bytes);
            copied.add(bytes.length);
            inline = MessageBytes.of(bytes);
        }
        List<WriteChunk> provided = call.header().writeList();
        if (header.writeChunkCount() != provided.size()) {
            throw error(call, "the reply echoed " + header.writeChunkCount() + " Write chunks, not " + provided.size());
        }
        List<long[]> writeWritten = new ArrayList<>(provided.size());
        for (int c = 0; c < provided.size(); c++) {
            List<Segment> segments = provided.get(c).segments();
            if (header.writeSegmentCount(c) != segments.size()) {
                throw error(call, "Write chunk " + c + " echoed with " + header.writeSegmentCount(c) + " segments");
            }
            long[] written = new long[segments.size()];
            for (int s = 0; s < written.length; s++) {
                written[s] = echoed(call, segments.get(s), header.writeHandle(c, s), header.writeLength(c, s),
                        header.writeOffset(c, s));
            }
            writeWritten.add(written);
        }
        return new Echo(inline, replyWritten, writeWritten);
    }

    /**
     * Rebuilds the reply, once the call's chunk memory holds what the responder wrote.
     *
     * @param call the call answered, released
     * @param echo what its reply echoed ({@link #echo})
     * @return the whole RPC reply: its inline part, its chunk data in place
     * @throws RdmaTransportException CALL if the Write chunk data has no place in the reply
     */
    public static MessageBytes reply(ChunkedCall call, Echo echo) throws RdmaTransportException {
        MessageBytes reply = echo.inline() != null ? echo.inline()
                : gather(call, call.header().replyChunk().segments(), echo.replyWritten());
        List<WriteChunk> provided = call.header().writeList();
        for (int c = 0; c < provided.size(); c++) {
            long[] written = echo.writeWritten().get(c);
            long total = 0;
            for (long bytes : written) {
                total += bytes;
            }
            if (total > 0) {
                reply = splice(call, c, reply, gather(call, provided.get(c).segments(), written));
            }
        }
        return reply;
    }

    private static long echoed(ChunkedCall call, Segment provided, int handle, int length, long offset)
            throws RdmaTransportException {
        if (handle != provided.handle() || offset != provided.offset()
                || Integer.toUnsignedLong(length) > provided.unsignedLength()) {
            throw error(call, "echoed segment (" + Integer.toHexString(handle) + ", " + Integer.toUnsignedLong(length)
                    + ") does not match the provided " + provided);
        }
        return Integer.toUnsignedLong(length);
    }

    /** @return the bytes written into the segments, in order, as views of the call's chunk memory */
    private static MessageBytes gather(ChunkedCall call, List<Segment> segments, long[] written) {
        List<ByteBuffer> data = new ArrayList<>(segments.size());
        for (int s = 0; s < written.length; s++) {
            int from = (int) (segments.get(s).offset() - call.replyMemory().address());
            data.add(call.replyBuffer().slice(from, (int) written[s]));
        }
        return MessageBytes.of(data);
    }

    private static MessageBytes splice(ChunkedCall call, int chunk, MessageBytes reply, MessageBytes data)
            throws RdmaTransportException {
        CallPlan plan = call.plan();
        List<XdrItem> items;
        try {
            items = plan.policy().replyPayloads(plan.procedure(), plan.call(), RpcHeaders.reply(reply));
        } catch (IllegalArgumentException e) {
            throw error(call, "cannot place Write chunk " + chunk + ": " + e.getMessage());
        }
        if (items.size() <= chunk || items.get(chunk).offset() > reply.length()) {
            throw error(call, "Write chunk " + chunk + " has no place in the reply");
        }
        int at = (int) items.get(chunk).offset();
        // The pad after the data is zeros (RFC 8166 §3.4.6: pad is not written).
        byte[] pad = new byte[(int) RoundUp.roundUp(data.length()) - data.length()];
        return MessageBytes.concat(reply.range(0, at), data, MessageBytes.of(pad),
                reply.range(at, reply.length() - at));
    }

    private static RdmaTransportException error(ChunkedCall call, String what) {
        return new RdmaTransportException(RdmaTransportException.Scope.CALL, "reply to xid 0x"
                + Integer.toHexString(call.plan().xid()) + ": " + what);
    }
}
