package org.rpcrdma4j.transport.marshal;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.Registration;
import org.rpcrdma4j.transport.rw.Deregistrations;
import org.rpcrdma4j.xdr.RpcRdmaHeader;
import org.rpcrdma4j.xdr.RpcRdmaHeaderFlyweight;
import org.rpcrdma4j.xdr.Segment;
import org.rpcrdma4j.xdr.WriteChunk;

/**
 * A call marshalled and registered, from its send until its answer: the message to send, the
 * transport header it carries (whose Write list and Reply chunk its reply must echo), and the memory
 * the responder reads (the call's bytes behind each Read chunk) or writes (one buffer behind every
 * Write chunk and the Reply chunk).
 *
 * <h2>Buffer ownership</h2>
 * The message, from the fabric's message buffers, belongs to the connection once sent, which gives it
 * back when the send ends: nothing reads it after. The registered memory belongs to the
 * responder, which may read or write it, until {@link #release}: the requester calls it when the
 * answer has been used, when the call fails, or when the connection closes (RFC 8166 §3.4.3: the
 * requester invalidates a chunk once the responder is done with it). A call that timed out above
 * the transport keeps its memory until then, as it keeps its credit: the responder may still write.
 *
 * <p>The buffer behind the Write and Reply chunks is leased from the requester's
 * {@link ChunkBufferPool}. After {@link #release}, and not before (once its continuation runs: the
 * fabric may still be copying the responder's bytes into it until then), it goes either back to the
 * pool ({@link #recycle}: nothing will read it) or with the reply to its reader ({@link #replyLease}),
 * who gives it back once the reply is decoded.
 */
public final class ChunkedCall {

    private final CallPlan plan;
    private final ByteBuffer message;
    private final RpcRdmaHeader header;
    private final List<Registration> callMemory;
    private final Registration replyMemory;
    private final ByteBuffer replyBuffer;
    private final ChunkBufferPool.Lease lease;
    private boolean released;

    ChunkedCall(CallPlan plan, ByteBuffer message, RpcRdmaHeader header, List<Registration> callMemory,
                Registration replyMemory, ByteBuffer replyBuffer, ChunkBufferPool.Lease lease) {
        this.plan = plan;
        this.message = message;
        this.header = header;
        this.callMemory = List.copyOf(callMemory);
        this.replyMemory = replyMemory;
        this.replyBuffer = replyBuffer;
        this.lease = lease;
    }

    /** @return the plan it was made from */
    public CallPlan plan() {
        return plan;
    }

    /** @return the message to send, position 0; the fabric's while sent */
    public ByteBuffer message() {
        return message;
    }

    /** @return the transport header sent */
    public RpcRdmaHeader header() {
        return header;
    }

    /** @return the memory behind the Write and Reply chunks, or {@code null} when none was provided */
    ByteBuffer replyBuffer() {
        return replyBuffer;
    }

    /** @return the registration of {@link #replyBuffer}, or {@code null} */
    Registration replyMemory() {
        return replyMemory;
    }

    /** @return how many chunk buffers the call holds: one per Read chunk and the reply memory */
    public int buffers() {
        return callMemory.size() + (replyMemory == null ? 0 : 1);
    }

    /**
     * Invalidates the call's chunks: deregisters its memory. Progress thread only; call once.
     *
     * @param fabric   the fabric that registered it
     * @param readable the bytes of the reply memory, from its first, that will be read
     *                 ({@link #replyBytesWritten}; 0 when no reply will be read), so that a fabric that
     *                 copies the memory copies back no more (the call's own memory is never written)
     * @param then     runs on the progress thread once the fabric is done with the memory, those bytes
     *                 in the reply memory: at once, or later when the fabric copies off its progress
     *                 turn ({@link Fabric#deregister(Registration, long, Runnable)}); only then may the
     *                 reply memory be read or go back to its pool
     */
    public void release(Fabric fabric, long readable, Runnable then) {
        if (released) {
            throw new IllegalStateException("xid 0x" + Integer.toHexString(plan.xid()) + " released already");
        }
        released = true;
        List<Registration> memory = callMemory;
        if (replyMemory != null) {
            memory = new ArrayList<>(callMemory);
            memory.add(replyMemory);
        }
        Deregistrations.all(fabric, memory, readable, then);
    }

    /**
     * @param reply a reply's transport header, wrapped
     * @return how far into the reply memory the responder wrote, as the reply echoes it: the end of
     *     the last segment it echoes with bytes in it, each echoed length taken no further than its
     *     provided segment (which the reply's checks hold it to), 0 for a reply that wrote none
     */
    public long replyBytesWritten(RpcRdmaHeaderFlyweight reply) {
        if (replyMemory == null) {
            return 0;
        }
        long end = 0;
        List<WriteChunk> writes = header.writeList();
        for (int c = 0; c < Math.min(writes.size(), reply.writeChunkCount()); c++) {
            List<Segment> segments = writes.get(c).segments();
            for (int s = 0; s < Math.min(segments.size(), reply.writeSegmentCount(c)); s++) {
                end = Math.max(end, written(segments.get(s), reply.writeLength(c, s)));
            }
        }
        if (header.replyChunk() != null && reply.hasReplyChunk()) {
            List<Segment> segments = header.replyChunk().segments();
            for (int s = 0; s < Math.min(segments.size(), reply.replySegmentCount()); s++) {
                end = Math.max(end, written(segments.get(s), reply.replyLength(s)));
            }
        }
        return end;
    }

    /** @return where in the reply memory the bytes echoed written into a provided segment end, 0 for none */
    private long written(Segment provided, int echoedLength) {
        long length = Math.min(Integer.toUnsignedLong(echoedLength), provided.unsignedLength());
        return length == 0 ? 0 : provided.offset() - replyMemory.address() + length;
    }

    /** @return whether {@link #release} has run */
    public boolean released() {
        return released;
    }

    /**
     * Gives the reply memory back to its pool when nothing will read it: no reply, or one that
     * cannot be used. After {@link #release} only, since until then the responder may write it; not
     * after {@link #replyLease} was handed on.
     */
    public void recycle() {
        if (!released) {
            throw new IllegalStateException("xid 0x" + Integer.toHexString(plan.xid())
                    + ": its chunk memory is still registered");
        }
        if (lease != null) {
            lease.giveBack();
        }
    }

    /**
     * @return the lease of the reply memory, for whoever reads the reply, which holds views of it:
     *     it gives the lease back once the reply is decoded; {@code null} when no chunk was provided
     */
    public ChunkBufferPool.Lease replyLease() {
        if (!released) {
            throw new IllegalStateException("xid 0x" + Integer.toHexString(plan.xid())
                    + ": its chunk memory is still registered");
        }
        return lease;
    }
}
