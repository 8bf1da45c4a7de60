package org.rpcrdma4j.transport.marshal;

import java.util.concurrent.atomic.AtomicLongArray;
import org.rpcrdma4j.xdr.Proc;
import org.rpcrdma4j.xdr.RpcRdmaHeaderFlyweight;

/**
 * How a requester's calls travelled and how their replies came back: the shapes of RFC 8166 §3.5 as
 * this side chose or met them. Written on the progress thread, read from any.
 */
public final class ChunkCounters {

    /** One way a call or reply travels. */
    public enum Shape {
        /** A call sent whole in one Send (RDMA_MSG, no Read chunk). */
        CALL_INLINE,
        /** A call whose DDP-eligible items went in Read chunks. */
        CALL_READ_CHUNKS,
        /** A call sent whole in a Position-zero Read chunk (RDMA_NOMSG). */
        CALL_POSITION_ZERO,
        /** A call that provided Write chunks for its reply. */
        CALL_WRITE_CHUNKS,
        /** A call that provided a Reply chunk. */
        CALL_REPLY_CHUNK,
        /** A reply that came whole in one Send. */
        REPLY_INLINE,
        /** A reply whose DDP-eligible data the responder wrote into Write chunks. */
        REPLY_WRITE_CHUNKS,
        /** A reply the responder wrote into the Reply chunk (RDMA_NOMSG). */
        REPLY_REPLY_CHUNK
    }

    private final AtomicLongArray counts = new AtomicLongArray(Shape.values().length);

    /**
     * Counts how a call travels.
     *
     * @param plan the call's plan, as sent
     */
    public void onSent(CallPlan plan) {
        if (plan.positionZero()) {
            increment(Shape.CALL_POSITION_ZERO);
        } else if (plan.readChunks() > 0) {
            increment(Shape.CALL_READ_CHUNKS);
        } else {
            increment(Shape.CALL_INLINE);
        }
        if (plan.writeChunks() > 0) {
            increment(Shape.CALL_WRITE_CHUNKS);
        }
        if (plan.replyChunk()) {
            increment(Shape.CALL_REPLY_CHUNK);
        }
    }

    /**
     * Counts how a reply came back.
     *
     * @param header the reply's transport header, RDMA_MSG or RDMA_NOMSG
     */
    public void onReply(RpcRdmaHeaderFlyweight header) {
        if (header.proc() == Proc.RDMA_NOMSG) {
            increment(Shape.REPLY_REPLY_CHUNK);
            return;
        }
        for (int chunk = 0; chunk < header.writeChunkCount(); chunk++) {
            for (int segment = 0; segment < header.writeSegmentCount(chunk); segment++) {
                if (header.writeLength(chunk, segment) != 0) {
                    increment(Shape.REPLY_WRITE_CHUNKS);
                    return;
                }
            }
        }
        increment(Shape.REPLY_INLINE);
    }

    /**
     * @param shape a shape
     * @return how many calls or replies travelled so
     */
    public long get(Shape shape) {
        return counts.get(shape.ordinal());
    }

    private void increment(Shape shape) {
        counts.incrementAndGet(shape.ordinal());
    }
}
