package org.rpcrdma4j.transport.marshal;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;
import org.rpcrdma4j.transport.MessageShape;
import org.rpcrdma4j.xdr.Proc;
import org.rpcrdma4j.xdr.RpcRdmaHeaderFlyweight;

/**
 * How a requester's calls travelled and how their replies came back: the shapes of RFC 8166 §3.5 as
 * this side chose or met them. Written on the progress thread, read from any.
 */
public final class ChunkCounters {

    private final AtomicLongArray counts = new AtomicLongArray(MessageShape.values().length);

    /**
     * Counts how a call travels.
     *
     * @param plan the call's plan, as sent
     */
    public void onSent(CallPlan plan) {
        if (plan.positionZero()) {
            increment(MessageShape.CALL_POSITION_ZERO);
        } else if (plan.readChunks() > 0) {
            increment(MessageShape.CALL_READ_CHUNKS);
        } else {
            increment(MessageShape.CALL_INLINE);
        }
        if (plan.writeChunks() > 0) {
            increment(MessageShape.CALL_WRITE_CHUNKS);
        }
        if (plan.replyChunk()) {
            increment(MessageShape.CALL_REPLY_CHUNK);
        }
    }

    /**
     * @param header a reply's transport header, RDMA_MSG or RDMA_NOMSG
     * @return how the reply came back: through the Reply chunk, with Write chunk data, or inline
     */
    public static MessageShape replyShape(RpcRdmaHeaderFlyweight header) {
        if (header.proc() == Proc.RDMA_NOMSG) {
            return MessageShape.REPLY_REPLY_CHUNK;
        }
        for (int chunk = 0; chunk < header.writeChunkCount(); chunk++) {
            for (int segment = 0; segment < header.writeSegmentCount(chunk); segment++) {
                if (header.writeLength(chunk, segment) != 0) {
                    return MessageShape.REPLY_WRITE_CHUNKS;
                }
            }
        }
        return MessageShape.REPLY_INLINE;
    }

    /**
     * Counts how a reply came back.
     *
     * @param shape its {@link #replyShape}
     */
    public void onReply(MessageShape shape) {
        increment(shape);
    }

    /** @return how many calls or replies travelled in each shape so far */
    public Map<MessageShape, Long> snapshot() {
        Map<MessageShape, Long> values = new EnumMap<>(MessageShape.class);
        for (MessageShape shape : MessageShape.values()) {
            values.put(shape, counts.get(shape.ordinal()));
        }
        return values;
    }

    private void increment(MessageShape shape) {
        counts.incrementAndGet(shape.ordinal());
    }
}
