package org.rpcrdma4j.testbed.trace;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.transport.marshal.RpcHeaders;
import org.rpcrdma4j.xdr.DecodedHeader;
import org.rpcrdma4j.xdr.Proc;
import org.rpcrdma4j.xdr.ReadChunk;
import org.rpcrdma4j.xdr.ReducedStream;
import org.rpcrdma4j.xdr.RoundUp;
import org.rpcrdma4j.xdr.RpcRdmaHeader;
import org.rpcrdma4j.xdr.Segment;
import org.rpcrdma4j.xdr.WriteChunk;
import org.rpcrdma4j.xdr.XdrItem;

/**
 * Rebuilds the RPC message (the XDR stream) an RPC-over-RDMA message conveyed, as its receiver does
 * (RFC 8166 §3.4): the inline part with the chunks' data, taken from the capture's RDMA Reads and
 * Writes, put back where they belong.
 */
public final class RpcStreams {

    private RpcStreams() {
    }

    /**
     * A call: RDMA_MSG's inline part with each Read chunk's data (and XDR pad) at its position, or
     * RDMA_NOMSG's Position-zero Read chunk, whose segments hold the call in order (§3.5.4).
     *
     * @param call      the call
     * @param before    the frame by which the responder had read all chunks (its reply), or
     *                  {@link Integer#MAX_VALUE}
     * @param transfers the capture's RDMA Reads
     * @return the call
     * @throws IllegalArgumentException if the capture lacks chunk data
     */
    public static byte[] call(CallReplyPairs.Message call, int before, RdmaTransfers transfers) {
        DecodedHeader h = call.header();
        int after = call.send().frame();
        List<ReadChunk> chunks = h.header().readChunks();
        if (!chunks.isEmpty() && chunks.get(0).unsignedPosition() == 0) {
            return gather(chunks.get(0).segments(), false, after, before, transfers);
        }
        List<XdrItem> items = new ArrayList<>();
        List<byte[]> data = new ArrayList<>();
        for (ReadChunk chunk : chunks) {
            items.add(new XdrItem(chunk.unsignedPosition(), chunk.length()));
            data.add(gather(chunk.segments(), false, after, before, transfers));
        }
        ReducedStream stream = ReducedStream.expand(h.payloadLength(), items);
        byte[] rpc = new byte[(int) stream.streamLength()];
        for (ReducedStream.Region region : stream.regions()) {
            if (region.kind() == ReducedStream.Kind.INLINE) {
                System.arraycopy(call.send().bytes(), h.payloadOffset() + (int) region.inlineOffset(), rpc,
                        (int) region.streamOffset(), (int) region.length());
            } else if (region.kind() == ReducedStream.Kind.CHUNK) {
                System.arraycopy(data.get(region.chunk()), 0, rpc, (int) region.streamOffset(), (int) region.length());
            }
        }
        return rpc;
    }

    /**
     * A reply: RDMA_NOMSG's Reply chunk, whose echoed segments give the bytes written into each; or
     * RDMA_MSG's inline part with the data of each Write chunk (the echoed lengths, §3.4.6) and its XDR
     * pad put back where the upper-layer binding places that result, which it finds from the bytes
     * before it (as {@link DdpPolicy#replyPayloads} promises).
     *
     * @param exchange  the call and its reply
     * @param call      the rebuilt call
     * @param policy    the upper-layer binding
     * @param transfers the capture's RDMA Writes
     * @return the reply
     * @throws IllegalArgumentException if the capture lacks chunk data or the reply does not parse
     */
    public static byte[] reply(CallReplyPairs.Exchange exchange, byte[] call, DdpPolicy policy,
                               RdmaTransfers transfers) {
        DecodedHeader h = exchange.reply().header();
        RpcRdmaHeader header = h.header();
        int after = exchange.call().send().frame();
        int before = exchange.reply().send().frame();
        if (header.replyChunk() != null && header.proc() == Proc.RDMA_NOMSG) {
            return gather(header.replyChunk().segments(), true, after, before, transfers);
        }
        byte[] rpc = Arrays.copyOfRange(exchange.reply().send().bytes(), h.payloadOffset(),
                h.payloadOffset() + h.payloadLength());
        List<WriteChunk> writes = header.writeList();
        for (int c = 0; c < writes.size(); c++) {
            byte[] data = gather(writes.get(c).segments(), true, after, before, transfers);
            if (data.length == 0) {
                continue;
            }
            List<XdrItem> results = policy.replyPayloads(RpcHeaders.procedure(call), RpcHeaders.call(call),
                    RpcHeaders.reply(rpc));
            if (results.size() <= c) {
                throw new IllegalArgumentException("the binding finds no result for Write chunk " + c);
            }
            int at = (int) results.get(c).offset();
            byte[] spliced = new byte[rpc.length + (int) RoundUp.roundUp(data.length)];
            System.arraycopy(rpc, 0, spliced, 0, at);
            System.arraycopy(data, 0, spliced, at, data.length);
            System.arraycopy(rpc, at, spliced, at + (int) RoundUp.roundUp(data.length), rpc.length - at);
            rpc = spliced;
        }
        return rpc;
    }

    private static byte[] gather(List<Segment> segments, boolean write, int after, int before,
                                 RdmaTransfers transfers) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Segment segment : segments) {
            byte[] data = transfers.gather(segment, write, after, before);
            if (data == null) {
                throw new IllegalArgumentException("the capture lacks the data of segment " + segment);
            }
            out.writeBytes(data);
        }
        return out.toByteArray();
    }
}
