package org.rpcrdma4j.testbed.trace;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import org.rpcrdma4j.fabric.MessageBuffers;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.transport.MessageBytes;
import org.rpcrdma4j.transport.marshal.ProvidedChunks;
import org.rpcrdma4j.transport.marshal.ReplyPlan;
import org.rpcrdma4j.transport.marshal.RpcHeaders;
import org.rpcrdma4j.xdr.HeaderDecoder;
import org.rpcrdma4j.xdr.RpcRdmaDecodeException;
import org.rpcrdma4j.xdr.RpcRdmaHeader;
import org.rpcrdma4j.xdr.WriteChunk;
import org.rpcrdma4j.xdr.XdrItem;

/**
 * Checks that our responder ({@link ReplyPlan}) would convey a reply as the Linux responder did, given
 * the chunks the Linux requester provided (RFC 8166 §3.4.6, §3.5.3): the same proc (inline RDMA_MSG or
 * RDMA_NOMSG through the Reply chunk), the same bytes written into each Write chunk and into the Reply
 * chunk (totals: per-segment boundaries follow Linux's buffer layout, docs/CONFORMANCE.md), and the same
 * credit grant.
 */
public final class ResponderConformance {

    private final DdpPolicy policy;
    private final HeaderDecoder decoder = new HeaderDecoder();

    /** @param policy the upper-layer binding our responder uses */
    public ResponderConformance(DdpPolicy policy) {
        this.policy = policy;
    }

    /**
     * @param call      the RPC call, rebuilt
     * @param callLinux the transport header Linux's requester sent it with: the chunks it provided
     * @param reply     the RPC reply Linux's responder sent, rebuilt
     * @param linux     the transport header Linux's responder sent it with
     * @param credits   the grant our responder makes (the one Linux's responder makes on this channel)
     * @param threshold the requester's inline receive size
     * @return the first difference, or empty when our responder agrees
     */
    public Optional<String> check(byte[] call, RpcRdmaHeader callLinux, byte[] reply, RpcRdmaHeader linux,
                                  int credits, int threshold) {
        List<XdrItem> payloads = policy.replyPayloads(RpcHeaders.procedure(call), RpcHeaders.call(call),
                RpcHeaders.reply(reply));
        ReplyPlan plan = ReplyPlan.of(linux.xid(), credits, MessageBytes.of(reply), null,
                new ProvidedChunks(callLinux.writeList(), callLinux.replyChunk()), payloads, threshold, MessageBuffers.HEAP,
                new LongAdder());
        if (plan == null) {
            return Optional.of("our responder cannot convey the reply (it would answer ERR_CHUNK); Linux sent "
                    + linux.proc());
        }
        RpcRdmaHeader ours;
        try {
            ours = decoder.decode(plan.message().array()).header();
        } catch (RpcRdmaDecodeException e) {
            return Optional.of("our reply header does not decode: " + e.getMessage());
        }
        if (ours.proc() != linux.proc()) {
            return Optional.of("proc: ours " + ours.proc() + ", Linux " + linux.proc());
        }
        List<Long> ourWrites = ours.writeList().stream().map(WriteChunk::length).toList();
        List<Long> linuxWrites = linux.writeList().stream().map(WriteChunk::length).toList();
        if (!ourWrites.equals(linuxWrites)) {
            return Optional.of("bytes written per Write chunk: ours " + ourWrites + ", Linux " + linuxWrites);
        }
        long ourReply = ours.replyChunk() == null ? -1 : ours.replyChunk().length();
        long linuxReply = linux.replyChunk() == null ? -1 : linux.replyChunk().length();
        if (ourReply != linuxReply) {
            return Optional.of("bytes written into the Reply chunk: ours " + describe(ourReply) + ", Linux "
                    + describe(linuxReply));
        }
        if (ours.credits() != linux.credits()) {
            return Optional.of("credits: ours " + ours.credits() + ", Linux " + linux.credits());
        }
        return Optional.empty();
    }

    private static String describe(long replyChunk) {
        return replyChunk < 0 ? "no Reply chunk" : Long.toString(replyChunk);
    }
}
