package org.rpcrdma4j.transport.marshal;

import java.nio.ByteBuffer;
import java.util.List;
import org.rpcrdma4j.transport.DdpPolicy;
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
 * more bytes than provided.
 */
public final class ReplySplicer {

    private ReplySplicer() {
    }

    /**
     * @param call   the call answered
     * @param header the reply's transport header, wrapped
     * @param buffer the received message
     * @return the whole RPC reply, a new array
     * @throws RdmaTransportException CALL if the echoed chunks do not match those provided or the
     *                                Write chunk data has no place in the reply
     */
    public static byte[] reply(ChunkedCall call, RpcRdmaHeaderFlyweight header, ByteBuffer buffer)
            throws RdmaTransportException {
        byte[] reply;
        if (header.proc() == Proc.RDMA_NOMSG) {
            if (!header.hasReplyChunk() || call.header().replyChunk() == null) {
                throw error(call, "RDMA_NOMSG reply without a Reply chunk");
            }
            List<Segment> provided = call.header().replyChunk().segments();
            if (header.replySegmentCount() != provided.size()) {
                throw error(call, "the Reply chunk echoed " + header.replySegmentCount() + " segments, not "
                        + provided.size());
            }
            long[] written = new long[provided.size()];
            for (int s = 0; s < written.length; s++) {
                written[s] = echoed(call, provided.get(s), header.replyHandle(s), header.replyLength(s),
                        header.replyOffset(s));
            }
            reply = gather(call, provided, written);
        } else {
            if (header.hasReplyChunk()) {
                throw error(call, "RDMA_MSG reply with a Reply chunk");
            }
            reply = new byte[header.payloadLength()];
            buffer.get(header.payloadOffset(), reply);
        }
        List<WriteChunk> provided = call.header().writeList();
        if (header.writeChunkCount() != provided.size()) {
            throw error(call, "the reply echoed " + header.writeChunkCount() + " Write chunks, not " + provided.size());
        }
        for (int c = 0; c < provided.size(); c++) {
            List<Segment> segments = provided.get(c).segments();
            if (header.writeSegmentCount(c) != segments.size()) {
                throw error(call, "Write chunk " + c + " echoed with " + header.writeSegmentCount(c) + " segments");
            }
            long[] written = new long[segments.size()];
            long total = 0;
            for (int s = 0; s < written.length; s++) {
                written[s] = echoed(call, segments.get(s), header.writeHandle(c, s), header.writeLength(c, s),
                        header.writeOffset(c, s));
                total += written[s];
            }
            if (total > 0) {
                reply = splice(call, c, reply, gather(call, segments, written));
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

    private static byte[] gather(ChunkedCall call, List<Segment> segments, long[] written) {
        long total = 0;
        for (long bytes : written) {
            total += bytes;
        }
        byte[] data = new byte[Math.toIntExact(total)];
        int at = 0;
        for (int s = 0; s < written.length; s++) {
            int from = (int) (segments.get(s).offset() - call.replyMemory().address());
            call.replyBuffer().get(from, data, at, (int) written[s]);
            at += (int) written[s];
        }
        return data;
    }

    private static byte[] splice(ChunkedCall call, int chunk, byte[] reply, byte[] data) throws RdmaTransportException {
        CallPlan plan = call.plan();
        List<XdrItem> items;
        try {
            items = plan.policy().replyPayloads(plan.procedure(), plan.call(), RpcHeaders.reply(reply));
        } catch (IllegalArgumentException e) {
            throw error(call, "cannot place Write chunk " + chunk + ": " + e.getMessage());
        }
        if (items.size() <= chunk || items.get(chunk).offset() > reply.length) {
            throw error(call, "Write chunk " + chunk + " has no place in the reply");
        }
        int at = (int) items.get(chunk).offset();
        byte[] spliced = new byte[reply.length + (int) RoundUp.roundUp(data.length)];
        System.arraycopy(reply, 0, spliced, 0, at);
        System.arraycopy(data, 0, spliced, at, data.length);
        // The pad bytes after the data stay zero (RFC 8166 §3.4.6: pad is not written).
        System.arraycopy(reply, at, spliced, at + (int) RoundUp.roundUp(data.length), reply.length - at);
        return spliced;
    }

    private static RdmaTransportException error(ChunkedCall call, String what) {
        return new RdmaTransportException(RdmaTransportException.Scope.CALL, "reply to xid 0x"
                + Integer.toHexString(call.plan().xid()) + ": " + what);
    }
}
