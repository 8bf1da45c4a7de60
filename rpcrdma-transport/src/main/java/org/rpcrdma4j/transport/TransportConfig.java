package org.rpcrdma4j.transport;

import org.rpcrdma4j.xdr.ConnectPrivateData;
import org.rpcrdma4j.xdr.DecodeLimits;

/**
 * The knobs of an RPC-over-RDMA connection, with Linux's defaults.
 *
 * @param inlineSendSize    the largest message this side sends inline, in bytes; advertised as the
 *                          RFC 8797 Send Size
 * @param inlineReceiveSize the largest message this side receives inline, in bytes: the size of each
 *                          pre-posted receive buffer, advertised as the RFC 8797 Receive Size
 * @param requesterCredits  the credits a requester asks for (RFC 8166 §3.3.1)
 * @param responderCredits  the credits a responder grants; never 0 (RFC 8166 §3.3.1)
 * @param maxConnections    the most connections a responder accepts; it keeps
 *                          {@code responderCredits + backwardRequesterCredits + 1} receives posted
 *                          for each
 * @param maxSegmentSize    the largest RDMA segment a requester advertises and the largest RDMA Read a
 *                          responder posts, in bytes (Linux uses segments of at most 131072)
 * @param maxMessageSize    the largest I/O, in bytes: the most a call's Read chunks carry together, or
 *                          one Write or Reply chunk. A requester refuses a call that needs more; a
 *                          responder answers ERR_CHUNK to Read chunks that carry more. With the
 *                          segment size it sets how many segments a chunk may have
 *                          ({@link #maxSegmentsPerChunk}), so that a requester and a responder of one
 *                          configuration always agree
 * @param backwardRequesterCredits the backward-direction credits a responder (server) asks for in
 *                          its backward calls: at most this many backward calls outstanding per
 *                          connection, and never more than the requester granted (RFC 8167);
 *                          it keeps that many extra receives posted per connection for their replies
 * @param backwardResponderCredits the backward-direction credits a requester (client) grants in its
 *                          backward replies, backed by that many extra receives posted for backward
 *                          calls (RFC 8167)
 */
public record TransportConfig(int inlineSendSize, int inlineReceiveSize, int requesterCredits, int responderCredits,
                              int maxConnections, int maxSegmentSize, int maxMessageSize,
                              int backwardRequesterCredits, int backwardResponderCredits) {

    /** Linux's inline threshold in both directions (net/sunrpc/xprtrdma: RPCRDMA_DEF_INLINE). */
    public static final int DEFAULT_INLINE_SIZE = 4096;
    /** What a requester asks for by default (Linux RPCRDMA_MAX_REQUESTS is 128). */
    public static final int DEFAULT_REQUESTER_CREDITS = 128;
    /** What a responder grants by default (Linux svcrdma's default is 64). */
    public static final int DEFAULT_RESPONDER_CREDITS = 64;
    /** Connections a responder accepts by default. */
    public static final int DEFAULT_MAX_CONNECTIONS = 8;
    /** The largest segment Linux xprtrdma advertises (seen in the traces: 2 × 131072 per 256 KiB). */
    public static final int DEFAULT_MAX_SEGMENT_SIZE = 131072;
    /** The largest call rebuilt from Read chunks by default: 16 MiB. */
    public static final int DEFAULT_MAX_MESSAGE_SIZE = 16 << 20;
    /** What nfsd asks for in its backward calls (seen in the traces: CB_RECALL carries credits 2). */
    public static final int DEFAULT_BACKWARD_REQUESTER_CREDITS = 2;
    /** What xprtrdma grants in its backward replies (seen in the traces: the CB reply carries credits 16). */
    public static final int DEFAULT_BACKWARD_RESPONDER_CREDITS = 16;
    /**
     * The most segments per chunk the Linux client sends ({@code RPCRDMA_MAX_HDR_SEGS} in
     * net/sunrpc/xprtrdma/xprt_rdma.h), which a responder accepts whatever its own configuration.
     */
    public static final int LINUX_MAX_SEGMENTS_PER_CHUNK = 16;
    /**
     * How many received messages that break RPC-over-RDMA or RPC (each answered with RDMA_ERROR or
     * dropped, as Linux svcrdma does) a responder takes from one connection: at this many it closes
     * the connection. A well-behaved requester sends none.
     */
    public static final int PROTOCOL_ERRORS_PER_CONNECTION = 16;
    /** The largest I/O a configuration may name: 1 GiB, so that a call rebuilt from Read chunks fits an array. */
    public static final int MAX_IO = 1 << 30;
    /** Linux's defaults. */
    public static final TransportConfig DEFAULT = new TransportConfig(DEFAULT_INLINE_SIZE, DEFAULT_INLINE_SIZE,
            DEFAULT_REQUESTER_CREDITS, DEFAULT_RESPONDER_CREDITS, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_SEGMENT_SIZE,
            DEFAULT_MAX_MESSAGE_SIZE, DEFAULT_BACKWARD_REQUESTER_CREDITS, DEFAULT_BACKWARD_RESPONDER_CREDITS);

    /**
     * Checks the values. Inline sizes must be expressible as RFC 8797 private data: multiples of
     * 1024 from 1024 (every receiver's minimum, RFC 8166 §3.3.2) to 262144.
     *
     * @param inlineSendSize    bytes
     * @param inlineReceiveSize bytes
     * @param requesterCredits  at least 1
     * @param responderCredits  at least 1
     * @param maxConnections    at least 1
     * @param maxSegmentSize    at least 4, a multiple of 4
     * @param maxMessageSize    at least the inline receive size, at most {@link #MAX_IO}
     * @param backwardRequesterCredits at least 1
     * @param backwardResponderCredits at least 1
     */
    public TransportConfig {
        new ConnectPrivateData(false, inlineSendSize, inlineReceiveSize);
        if (requesterCredits < 1 || responderCredits < 1 || maxConnections < 1 || backwardRequesterCredits < 1
                || backwardResponderCredits < 1) {
            throw new IllegalArgumentException("credits and connections must be at least 1: requester "
                    + requesterCredits + ", responder " + responderCredits + ", connections " + maxConnections
                    + ", backward requester " + backwardRequesterCredits + ", backward responder "
                    + backwardResponderCredits);
        }
        if (maxSegmentSize < 4 || maxSegmentSize % 4 != 0 || maxMessageSize < inlineReceiveSize
                || maxMessageSize > MAX_IO) {
            throw new IllegalArgumentException("segment size " + maxSegmentSize + " must be a positive multiple of 4"
                    + " and message size " + maxMessageSize + " between the inline receive size and " + MAX_IO);
        }
    }

    /**
     * @param bytes inline send size
     * @return a copy with that value
     */
    public TransportConfig withInlineSendSize(int bytes) {
        return new TransportConfig(bytes, inlineReceiveSize, requesterCredits, responderCredits,
                maxConnections, maxSegmentSize, maxMessageSize,
                backwardRequesterCredits, backwardResponderCredits);
    }

    /**
     * @param bytes inline receive size
     * @return a copy with that value
     */
    public TransportConfig withInlineReceiveSize(int bytes) {
        return new TransportConfig(inlineSendSize, bytes, requesterCredits, responderCredits,
                maxConnections, maxSegmentSize, maxMessageSize,
                backwardRequesterCredits, backwardResponderCredits);
    }

    /**
     * @param credits credits to request
     * @return a copy with that value
     */
    public TransportConfig withRequesterCredits(int credits) {
        return new TransportConfig(inlineSendSize, inlineReceiveSize, credits, responderCredits,
                maxConnections, maxSegmentSize, maxMessageSize,
                backwardRequesterCredits, backwardResponderCredits);
    }

    /**
     * @param credits credits to grant
     * @return a copy with that value
     */
    public TransportConfig withResponderCredits(int credits) {
        return new TransportConfig(inlineSendSize, inlineReceiveSize, requesterCredits, credits,
                maxConnections, maxSegmentSize, maxMessageSize,
                backwardRequesterCredits, backwardResponderCredits);
    }

    /**
     * @param connections most connections accepted
     * @return a copy with that value
     */
    public TransportConfig withMaxConnections(int connections) {
        return new TransportConfig(inlineSendSize, inlineReceiveSize, requesterCredits, responderCredits,
                connections, maxSegmentSize, maxMessageSize,
                backwardRequesterCredits, backwardResponderCredits);
    }

    /**
     * @param bytes largest RDMA segment
     * @return a copy with that value
     */
    public TransportConfig withMaxSegmentSize(int bytes) {
        return new TransportConfig(inlineSendSize, inlineReceiveSize, requesterCredits, responderCredits,
                maxConnections, bytes, maxMessageSize,
                backwardRequesterCredits, backwardResponderCredits);
    }

    /**
     * @param bytes largest call rebuilt from Read chunks
     * @return a copy with that value
     */
    public TransportConfig withMaxMessageSize(int bytes) {
        return new TransportConfig(inlineSendSize, inlineReceiveSize, requesterCredits, responderCredits,
                maxConnections, maxSegmentSize, bytes,
                backwardRequesterCredits, backwardResponderCredits);
    }

    /**
     * @param credits backward-direction credits a responder asks for
     * @return a copy with that value
     */
    public TransportConfig withBackwardRequesterCredits(int credits) {
        return new TransportConfig(inlineSendSize, inlineReceiveSize, requesterCredits, responderCredits,
                maxConnections, maxSegmentSize, maxMessageSize, credits, backwardResponderCredits);
    }

    /**
     * @param credits backward-direction credits a requester grants
     * @return a copy with that value
     */
    public TransportConfig withBackwardResponderCredits(int credits) {
        return new TransportConfig(inlineSendSize, inlineReceiveSize, requesterCredits, responderCredits,
                maxConnections, maxSegmentSize, maxMessageSize, backwardRequesterCredits, credits);
    }

    /**
     * @return the most segments one chunk may have: as many as a chunk of {@link #maxMessageSize}
     *     takes in segments of {@link #maxSegmentSize}, and never fewer than the Linux client sends
     */
    public int maxSegmentsPerChunk() {
        long segments = (maxMessageSize + (long) maxSegmentSize - 1) / maxSegmentSize;
        return (int) Math.max(LINUX_MAX_SEGMENTS_PER_CHUNK, segments);
    }

    /** @return the bounds a responder puts on received headers: {@link #maxSegmentsPerChunk} per chunk */
    public DecodeLimits decodeLimits() {
        return new DecodeLimits(maxSegmentsPerChunk(), DecodeLimits.DEFAULT.maxReadChunks(),
                DecodeLimits.DEFAULT.maxWriteChunks());
    }

    /**
     * The RFC 8797 private data this side advertises. It does not offer remote invalidation itself:
     * whether a peer's Send with Invalidate can invalidate the requester's chunk keys depends on how
     * the fabric registers them (only memory windows and fast-registered regions can be; rxe fails
     * such a receive of an {@code ibv_reg_mr} key and the queue pair with it), so a fabric that binds
     * windows offers it in what it sends ({@link org.rpcrdma4j.fabric.Fabric}, "Remote invalidation").
     *
     * @return the private data, remote invalidation not offered
     */
    public ConnectPrivateData privateData() {
        return new ConnectPrivateData(false, inlineSendSize, inlineReceiveSize);
    }
}
