package org.rpcrdma4j.transport.rw;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricStatus;
import org.rpcrdma4j.fabric.MemoryAccess;
import org.rpcrdma4j.fabric.Registration;
import org.rpcrdma4j.xdr.ReadChunk;
import org.rpcrdma4j.xdr.ReducedStream;
import org.rpcrdma4j.xdr.Segment;
import org.rpcrdma4j.xdr.XdrItem;

/**
 * The responder's pull of a call's Read chunks (RFC 8166 §3.4.5, §3.5.4; Linux
 * {@code svc_rdma_rw.c}, {@code svc_rdma_process_read_list}): rebuilds the unreduced RPC call in one
 * new array, with the inline part copied at once, each Read chunk RDMA-Read at its position, and
 * the XDR pad after an odd-length chunk left as zeros, since the requester never moves pad. A
 * Position-zero Read chunk is the whole call (RDMA_NOMSG, no inline part).
 *
 * <h2>Buffer ownership</h2>
 * {@link #start} copies what it needs of the received buffer before returning, so the caller may
 * post that buffer again. Each chunk's range of the rebuilt array is registered for the reads (as
 * memory only written: a fabric that moves it through memory of its own copies it back, never in)
 * and deregistered when they all end, with a continuation
 * ({@link Fabric#deregister(Registration, long, Runnable)}), so that a fabric may copy the bytes back
 * off its progress turn; once every target's continuation has run the array belongs to the callback.
 *
 * <p>Progress thread only; never waits: the reads and the copies back end on the progress thread.
 */
public final class ReadChunkPull {

    /** Gets the outcome of a pull, on the progress thread. */
    public interface Done {

        /**
         * @param message the rebuilt RPC call, owned by the callee; {@code null} on failure
         * @param status  {@link FabricStatus#SUCCESS}, or why a read failed
         */
        void onPulled(byte[] message, FabricStatus status);
    }

    private final List<ReadChunk> chunks;
    private final ReducedStream stream;

    /**
     * Lays the call out.
     *
     * @param inlineLength bytes of the call sent inline, after the transport header
     * @param chunks       the Read chunks, by ascending position
     * @throws IllegalArgumentException if the chunks do not fit the inline part (the decoder's checks
     *                                  make this a peer error: answer ERR_CHUNK)
     */
    public ReadChunkPull(int inlineLength, List<ReadChunk> chunks) {
        this.chunks = List.copyOf(chunks);
        List<XdrItem> items = new ArrayList<>(chunks.size());
        for (ReadChunk chunk : chunks) {
            items.add(new XdrItem(chunk.unsignedPosition(), chunk.length()));
        }
        this.stream = ReducedStream.expand(inlineLength, items);
    }

    /** @return bytes of the rebuilt call, pad included */
    public long streamLength() {
        return stream.streamLength();
    }

    /**
     * Copies the inline part and starts the reads. The rebuilt call must fit an array: check
     * {@link #streamLength} first.
     *
     * @param fabric       the fabric, which registers the rebuilt call
     * @param queue        the connection's work queue, where the reads go
     * @param received     the received message
     * @param inlineOffset index in it of the first inline byte of the call
     * @param maxRead      the largest single RDMA Read to post
     * @param copied       counts the bytes copied: the inline part
     * @param done         gets the rebuilt call or the error
     * @return false if the memory could not be registered (nothing started)
     */
    public boolean start(Fabric fabric, WorkQueue queue, ByteBuffer received, int inlineOffset,
                         int maxRead, LongAdder copied, Done done) {
        byte[] message = new byte[Math.toIntExact(stream.streamLength())];
        for (ReducedStream.Region region : stream.regions()) {
            if (region.kind() == ReducedStream.Kind.INLINE) {
                received.get(inlineOffset + (int) region.inlineOffset(), message, (int) region.streamOffset(),
                        (int) region.length());
                copied.add(region.length());
            }
        }
        // Each chunk's bytes are registered alone, as the reads' target: memory only written, which a
        // fabric need not fill first, and the inline part and the pad are not in it.
        List<ReducedStream.Region> pulled = new ArrayList<>();
        List<Registration> targets = new ArrayList<>();
        for (ReducedStream.Region region : stream.regions()) {
            if (region.kind() == ReducedStream.Kind.CHUNK && region.length() > 0) {
                Registration target = fabric.register(ByteBuffer.wrap(message, (int) region.streamOffset(),
                        (int) region.length()), EnumSet.of(MemoryAccess.LOCAL_WRITE));
                if (target == null) {
                    targets.forEach(fabric::deregister);
                    return false;
                }
                pulled.add(region);
                targets.add(target);
            }
        }
        RdmaBatch batch = new RdmaBatch(status -> {
            // A failed pull's bytes are never read: a fabric need not copy them back.
            long readable = status.ok() ? Long.MAX_VALUE : 0;
            Deregistrations.all(fabric, targets, readable, () -> done.onPulled(status.ok() ? message : null, status));
        });
        for (int i = 0; i < pulled.size(); i++) {
            long at = 0;
            for (Segment segment : chunks.get(pulled.get(i).chunk()).segments()) {
                // Several reads of at most maxRead per segment, as svcrdma splits by its rdma_rw limit.
                for (long moved = 0; moved < segment.unsignedLength(); moved += maxRead) {
                    long length = Math.min(maxRead, segment.unsignedLength() - moved);
                    queue.read(targets.get(i), at + moved,
                            new Segment(segment.handle(), (int) length, segment.offset() + moved),
                            batch.operation());
                }
                at += segment.unsignedLength();
            }
        }
        batch.seal();
        return true;
    }
}
