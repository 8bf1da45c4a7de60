package org.rpcrdma4j.testbed.trace;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.transport.RdmaTransportException;
import org.rpcrdma4j.transport.marshal.CallPlan;
import org.rpcrdma4j.xdr.ReadChunk;
import org.rpcrdma4j.xdr.RpcRdmaHeader;
import org.rpcrdma4j.xdr.WriteChunk;

/**
 * Checks that our requester ({@link CallPlan}) would convey a call as the Linux requester did (RFC 8166
 * §3.5): the same proc, Read chunks at the same positions with the same total lengths, Write chunks of
 * the same total lengths, and a Reply chunk when and only when Linux provided one, large enough for
 * what the responder actually wrote into Linux's. Segment boundaries are not compared: Linux splits a
 * chunk along its buffer pages (docs/CONFORMANCE.md).
 */
public final class RequesterConformance {

    /** The largest segment Linux advertises (xprtrdma's FRWR page list of 128 KiB). */
    public static final int MAX_SEGMENT = 131072;

    private final DdpPolicy policy;

    /** @param policy the upper-layer binding our requester uses */
    public RequesterConformance(DdpPolicy policy) {
        this.policy = policy;
    }

    /**
     * @param call        the RPC call Linux sent, rebuilt
     * @param linux       the transport header Linux sent it with
     * @param send        the responder's inline receive size (its RFC 8797 private data)
     * @param receive     the requester's inline receive size
     * @param replyLinux  the header of Linux's reply, or {@code null} when the capture holds none
     * @return the first difference, or empty when our requester agrees
     */
    public Optional<String> check(byte[] call, RpcRdmaHeader linux, int send, int receive, RpcRdmaHeader replyLinux) {
        CallPlan plan;
        try {
            plan = CallPlan.of(linux.xid(), call, policy, send, receive, MAX_SEGMENT);
        } catch (RdmaTransportException e) {
            return Optional.of("our requester refuses the call: " + e.getMessage());
        }
        RpcRdmaHeader ours = plan.shape(linux.credits());
        if (ours.proc() != linux.proc()) {
            return Optional.of("proc: ours " + ours.proc() + ", Linux " + linux.proc());
        }
        List<String> ourReads = readChunks(ours);
        List<String> linuxReads = readChunks(linux);
        if (!ourReads.equals(linuxReads)) {
            return Optional.of("Read chunks (position:length): ours " + ourReads + ", Linux " + linuxReads);
        }
        List<Long> ourWrites = ours.writeList().stream().map(WriteChunk::length).toList();
        List<Long> linuxWrites = linux.writeList().stream().map(WriteChunk::length).toList();
        if (!ourWrites.equals(linuxWrites)) {
            return Optional.of("Write chunk lengths: ours " + ourWrites + ", Linux " + linuxWrites);
        }
        if (ours.hasReplyChunk() != linux.hasReplyChunk()) {
            return Optional.of("Reply chunk: ours " + (ours.hasReplyChunk() ? "provided" : "none") + ", Linux "
                    + (linux.hasReplyChunk() ? "provided" : "none"));
        }
        if (ours.hasReplyChunk() && replyLinux != null && replyLinux.replyChunk() != null) {
            long ourLength = ours.replyChunk().length();
            long written = replyLinux.replyChunk().length();
            if (ourLength < written) {
                return Optional.of("Reply chunk: ours " + ourLength + " bytes, the server wrote " + written
                        + " into Linux's");
            }
        }
        return Optional.empty();
    }

    /** @return each Read chunk as position:total length, segment boundaries left out */
    private static List<String> readChunks(RpcRdmaHeader header) {
        List<String> chunks = new ArrayList<>();
        for (ReadChunk chunk : header.readChunks()) {
            chunks.add(chunk.unsignedPosition() + ":" + chunk.length());
        }
        return chunks;
    }
}
