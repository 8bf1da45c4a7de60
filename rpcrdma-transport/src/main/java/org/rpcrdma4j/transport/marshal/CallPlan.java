package org.rpcrdma4j.transport.marshal;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricConnection;
import org.rpcrdma4j.fabric.MemoryAccess;
import org.rpcrdma4j.fabric.Registration;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.transport.MessageBytes;
import org.rpcrdma4j.transport.RdmaTransportException;
import org.rpcrdma4j.xdr.HeaderEncoder;
import org.rpcrdma4j.xdr.ReadSegment;
import org.rpcrdma4j.xdr.ReducedStream;
import org.rpcrdma4j.xdr.ReplyChunk;
import org.rpcrdma4j.xdr.RoundUp;
import org.rpcrdma4j.xdr.RpcRdmaHeader;
import org.rpcrdma4j.xdr.Segment;
import org.rpcrdma4j.xdr.WriteChunk;
import org.rpcrdma4j.xdr.XdrItem;

/**
 * How one call travels: the requester's marshalling decision, made as Linux
 * {@code rpcrdma_marshal_req} makes it and as {@link DdpPolicy} states.
 *
 * <h2>The call (RFC 8166 §3.5)</h2>
 * <ol>
 * <li>RDMA_MSG with the whole call inline when the transport header and the call fit the peer's
 *     receive threshold ("Short Message", §3.5.2);</li>
 * <li>otherwise RDMA_MSG whose Read list carries each non-empty DDP-eligible item as a Read chunk at
 *     its XDR position, the rest inline; the XDR pad is neither moved nor sent (§3.4.5, round-up);</li>
 * <li>otherwise (no DDP-eligible item, or the reduced call still too long) RDMA_NOMSG with the whole
 *     call in a Position-zero Read chunk ("Long Call", §3.5.4).</li>
 * </ol>
 *
 * <h2>The reply (RFC 8166 §3.4.6, §3.5.3)</h2>
 * None when {@link DdpPolicy.ReplySize#maxLength} plus {@link DdpPolicy.ReplySize#REPLY_HEADER_RESERVE}
 * fits this side's receive threshold (Linux {@code rpcrdma_results_inline}); otherwise one Write chunk
 * per DDP-eligible result, of its largest length; otherwise a Reply chunk of the largest reply. Linux's combinations follow: Read, Write, Reply, Read+Write,
 * Read+Reply, Position-zero with either.
 *
 * <p>Chunks are split into segments of at most the configured size (Linux: 131072 bytes). Planning
 * touches no fabric and may run on any thread; {@link #register} runs on the progress thread.
 *
 * <p>The peer reads each Read chunk in place: from the buffer the item lies in (a shallow-encoded
 * WRITE argument is one), registered per chunk; only an item split over buffers, or a Position-zero
 * call in several, is copied into one.
 */
public final class CallPlan {

    private static final Registration PLACEHOLDER = new Registration(0, 0, Long.MAX_VALUE);

    private final int xid;
    private final MessageBytes rpc;
    private final DdpPolicy policy;
    private final DdpPolicy.RpcProcedure procedure;
    private final DdpPolicy.RpcMessage call;
    private final int maxSegment;
    /** The thresholds it was planned for: the peer's receive, this side's receive. */
    private final int send;
    private final int receive;
    private final List<XdrItem> readItems;
    private final boolean positionZero;
    private final MessageBytes inline;
    private final List<Long> writeChunkLengths;
    private final long replyChunkLength;

    private CallPlan(int xid, MessageBytes rpc, DdpPolicy policy, DdpPolicy.RpcProcedure procedure,
                     DdpPolicy.RpcMessage call, int maxSegment, int send, int receive, List<XdrItem> readItems,
                     boolean positionZero, MessageBytes inline, List<Long> writeChunkLengths, long replyChunkLength) {
        this.xid = xid;
        this.send = send;
        this.receive = receive;
        this.rpc = rpc;
        this.policy = policy;
        this.procedure = procedure;
        this.call = call;
        this.maxSegment = maxSegment;
        this.readItems = readItems;
        this.positionZero = positionZero;
        this.inline = inline;
        this.writeChunkLengths = writeChunkLengths;
        this.replyChunkLength = replyChunkLength;
    }

    /**
     * Decides how a call in one array travels.
     *
     * @param xid        the call's XID
     * @param rpc        the whole encoded call; the plan keeps it, and the caller must not change it
     * @param policy     the program's DDP policy
     * @param send       the peer's inline receive threshold: the largest message to send
     * @param receive    this side's inline receive threshold: the largest reply that needs no chunk
     * @param maxSegment the largest segment to advertise
     * @return the plan
     * @throws RdmaTransportException as {@link #of(int, MessageBytes, DdpPolicy, int, int, int)}
     */
    public static CallPlan of(int xid, byte[] rpc, DdpPolicy policy, int send, int receive, int maxSegment)
            throws RdmaTransportException {
        return of(xid, MessageBytes.of(rpc), policy, send, receive, maxSegment);
    }

    /**
     * Decides how a call travels.
     *
     * @param xid        the call's XID
     * @param rpc        the whole encoded call; the plan keeps it, and its bytes must not change until
     *                   the call is released
     * @param policy     the program's DDP policy
     * @param send       the peer's inline receive threshold: the largest message to send
     * @param receive    this side's inline receive threshold: the largest reply that needs no chunk
     * @param maxSegment the largest segment to advertise
     * @return the plan
     * @throws RdmaTransportException CALL if the call is not a well-formed RPC call, the policy's items
     *                                do not lie in it, or even the transport header does not fit
     */
    public static CallPlan of(int xid, MessageBytes rpc, DdpPolicy policy, int send, int receive, int maxSegment)
            throws RdmaTransportException {
        DdpPolicy.RpcMessage call;
        DdpPolicy.RpcProcedure procedure;
        DdpPolicy.ReplySize replySize;
        List<XdrItem> payloads = List.of();
        try {
            call = RpcHeaders.call(rpc);
            procedure = RpcHeaders.procedure(rpc);
            replySize = policy.replySize(procedure, call);
            List<XdrItem> items = policy.callPayloads(procedure, call);
            for (int i = 0; i < items.size(); i++) {
                if (items.get(i).length() > 0) {
                    if (payloads.isEmpty()) {
                        payloads = new ArrayList<>(items.size());
                    }
                    payloads.add(items.get(i));
                }
            }
        } catch (IllegalArgumentException e) {
            throw new RdmaTransportException(RdmaTransportException.Scope.CALL, "xid 0x" + Integer.toHexString(xid)
                    + ": cannot marshal the call: " + e.getMessage());
        }
        List<Long> writes = List.of();
        long replyChunk = 0;
        if (replySize.maxLength() + DdpPolicy.ReplySize.REPLY_HEADER_RESERVE > receive) {
            if (replySize.payloadMaxLengths().isEmpty()) {
                replyChunk = RoundUp.roundUp(replySize.maxLength());
            } else {
                writes = replySize.payloadMaxLengths();
            }
        }
        CallPlan inlinePlan = new CallPlan(xid, rpc, policy, procedure, call, maxSegment, send, receive, List.of(), false, rpc,
                writes, replyChunk);
        if (inlinePlan.fits(send)) {
            return inlinePlan;
        }
        if (!payloads.isEmpty()) {
            ReducedStream reduced;
            try {
                reduced = ReducedStream.reduce(rpc.length(), payloads);
            } catch (IllegalArgumentException e) {
                throw new RdmaTransportException(RdmaTransportException.Scope.CALL, "xid 0x"
                        + Integer.toHexString(xid) + ": the DDP policy's call items are wrong: " + e.getMessage());
            }
            CallPlan readPlan = new CallPlan(xid, rpc, policy, procedure, call, maxSegment, send, receive,
                    List.copyOf(payloads), false, inlinePart(rpc, reduced), writes, replyChunk);
            if (readPlan.fits(send)) {
                return readPlan;
            }
        }
        CallPlan longCall = new CallPlan(xid, rpc, policy, procedure, call, maxSegment, send, receive, List.of(), true,
                MessageBytes.EMPTY, writes, replyChunk);
        if (!longCall.fits(send)) {
            throw new RdmaTransportException(RdmaTransportException.Scope.CALL, "xid 0x" + Integer.toHexString(xid)
                    + ": even the transport header of a Position-zero call exceeds the peer's inline threshold of "
                    + send + " bytes");
        }
        return longCall;
    }

    /**
     * The plan of the same call for a connection with other thresholds, as a requester needs when it
     * sends a call again on a new connection.
     *
     * @param peerReceive the peer's inline receive threshold on that connection
     * @param ownReceive  this side's inline receive threshold on it
     * @return this plan if it was made for those thresholds, else a new one
     * @throws RdmaTransportException as {@link #of(int, MessageBytes, DdpPolicy, int, int, int)}
     */
    public CallPlan forThresholds(int peerReceive, int ownReceive) throws RdmaTransportException {
        return peerReceive == send && ownReceive == receive ? this
                : of(xid, rpc, policy, peerReceive, ownReceive, maxSegment);
    }

    /**
     * @return the largest I/O the call needs: the bytes of its Read chunks together (the whole call
     *     for Position-zero), or of its largest Write chunk or its Reply chunk; 0 if it needs none
     */
    public long largestChunk() {
        long read = positionZero ? rpc.length() : 0;
        for (int i = 0; i < readItems.size(); i++) {
            read += readItems.get(i).length();
        }
        long largest = Math.max(read, replyChunkLength);
        for (int i = 0; i < writeChunkLengths.size(); i++) {
            largest = Math.max(largest, writeChunkLengths.get(i));
        }
        return largest;
    }

    /** @return how many Read chunks carry the call's DDP-eligible items (0 when inline or Position-zero) */
    public int readChunks() {
        return readItems.size();
    }

    /** @return whether the whole call travels in a Position-zero Read chunk (RDMA_NOMSG) */
    public boolean positionZero() {
        return positionZero;
    }

    /** @return how many Write chunks are provided for the reply's DDP-eligible results */
    public int writeChunks() {
        return writeChunkLengths.size();
    }

    /** @return whether a Reply chunk is provided */
    public boolean replyChunk() {
        return replyChunkLength > 0;
    }

    /** @return the call's XID */
    public int xid() {
        return xid;
    }

    /** @return the policy the call was planned with, to splice its reply */
    public DdpPolicy policy() {
        return policy;
    }

    /** @return the procedure called */
    public DdpPolicy.RpcProcedure procedure() {
        return procedure;
    }

    /** @return the call and where its arguments start */
    public DdpPolicy.RpcMessage call() {
        return call;
    }

    /**
     * @param credits the credit value to put in the header
     * @return the header the call is sent with, but with placeholder handles and offsets: this
     *     requester's choices alone, to compare with another requester's
     */
    public RpcRdmaHeader shape(int credits) {
        return header(credits, placeholders(), PLACEHOLDER);
    }

    /**
     * Registers the call's chunk memory and encodes the message. Progress thread only.
     *
     * @param fabric  the fabric
     * @param on      the connection the call goes on, whose peer reaches the chunk memory
     * @param credits the credit value to put in the header
     * @param copied  counts the bytes copied: the inline part, and a Read chunk's item that lies in
     *                more than one buffer of the call
     * @param pool    where the memory behind the Write and Reply chunks comes from
     * @return the call ready to send, or {@code null} if memory could not be registered
     */
    public ChunkedCall register(Fabric fabric, FabricConnection on, int credits, LongAdder copied,
                                ChunkBufferPool pool) {
        int chunks = positionZero ? 1 : readItems.size();
        List<Registration> callMemory = chunks == 0 ? List.of() : new ArrayList<>(chunks);
        // Read chunks: the peer reads the encoded call in place (RFC 8166 §3.4.5).
        for (int i = 0; i < chunks; i++) {
            XdrItem read = positionZero ? new XdrItem(0, rpc.length()) : readItems.get(i);
            if (!rpc.inOneBuffer((int) read.offset(), (int) read.length())) {
                copied.add(read.length());
            }
            Registration memory = fabric.register(on, rpc.contiguous((int) read.offset(), (int) read.length()),
                    EnumSet.of(MemoryAccess.REMOTE_READ));
            if (memory == null) {
                callMemory.forEach(fabric::deregister);
                return null;
            }
            callMemory.add(memory);
        }
        ByteBuffer replyBuffer = null;
        Registration replyMemory = null;
        ChunkBufferPool.Lease lease = null;
        long replyBytes = replyMemoryLength();
        if (replyBytes > 0 || !writeChunkLengths.isEmpty() || replyChunkLength > 0) {
            // A pooled buffer, not zeroed: the responder may only write it, and only the bytes the
            // reply echoes as written are read. Exactly the chunks' bytes are registered.
            lease = pool.take(Math.toIntExact(replyBytes));
            replyBuffer = lease.memory().slice(0, Math.toIntExact(replyBytes));
            replyMemory = fabric.register(on, replyBuffer, EnumSet.of(MemoryAccess.REMOTE_WRITE));
            if (replyMemory == null) {
                lease.giveBack();
                callMemory.forEach(fabric::deregister);
                return null;
            }
        }
        RpcRdmaHeader header = header(credits, callMemory, replyMemory);
        // In the fabric's message buffers: a fabric that registered them sends it where it is.
        ByteBuffer message = fabric.messageBuffers().allocate(HeaderEncoder.encodedLength(header) + inline.length());
        int at = HeaderEncoder.encode(header, message, 0);
        inline.get(0, message, at, inline.length());
        copied.add(inline.length());
        return new ChunkedCall(this, message, header, callMemory, replyMemory, replyBuffer, lease);
    }

    private boolean fits(int send) {
        int header = shortMessage() ? HeaderEncoder.NO_CHUNKS_LENGTH : HeaderEncoder.encodedLength(header(0,
                placeholders(), PLACEHOLDER));
        return header + inline.length() <= send;
    }

    /** @return whether the call goes whole in an RDMA_MSG with no chunks ("Short Message", §3.5.2) */
    private boolean shortMessage() {
        return !positionZero && readItems.isEmpty() && writeChunkLengths.isEmpty() && replyChunkLength == 0;
    }

    /** @return a placeholder per Read chunk's registration */
    private List<Registration> placeholders() {
        int chunks = positionZero ? 1 : readItems.size();
        return chunks == 0 ? List.of() : Collections.nCopies(chunks, PLACEHOLDER);
    }

    private long replyMemoryLength() {
        long length = replyChunkLength;
        for (int i = 0; i < writeChunkLengths.size(); i++) {
            length += RoundUp.roundUp(writeChunkLengths.get(i));
        }
        return length;
    }

    /** @param callMemory one registration per Read chunk: the Position-zero call's, or each item's */
    private RpcRdmaHeader header(int credits, List<Registration> callMemory, Registration replyMemory) {
        if (shortMessage()) {
            return RpcRdmaHeader.msg(xid, credits, List.of(), List.of(), null);
        }
        List<ReadSegment> reads = new ArrayList<>();
        if (positionZero) {
            for (Segment segment : segments(callMemory.get(0), 0, rpc.length())) {
                reads.add(new ReadSegment(0, segment));
            }
        }
        for (int i = 0; i < readItems.size(); i++) {
            XdrItem item = readItems.get(i);
            for (Segment segment : segments(callMemory.get(i), 0, item.length())) {
                reads.add(new ReadSegment((int) item.offset(), segment));
            }
        }
        List<WriteChunk> writes = new ArrayList<>(writeChunkLengths.size());
        long base = 0;
        for (long length : writeChunkLengths) {
            writes.add(new WriteChunk(segments(replyMemory, base, length)));
            base += RoundUp.roundUp(length);
        }
        ReplyChunk reply = replyChunkLength == 0 ? null : new ReplyChunk(segments(replyMemory, base, replyChunkLength));
        return positionZero ? RpcRdmaHeader.nomsg(xid, credits, reads, writes, reply)
                : RpcRdmaHeader.msg(xid, credits, reads, writes, reply);
    }

    /** @return where Reply chunk data starts in the reply memory: after every Write chunk */
    long replyChunkBase() {
        return replyMemoryLength() - replyChunkLength;
    }

    private List<Segment> segments(Registration memory, long offset, long length) {
        List<Segment> segments = new ArrayList<>();
        long at = 0;
        do {
            long piece = Math.min(maxSegment, length - at);
            segments.add(memory.segment(offset + at, piece));
            at += piece;
        } while (at < length);
        return segments;
    }

    /** @return the call's inline regions, views of it */
    private static MessageBytes inlinePart(MessageBytes rpc, ReducedStream reduced) {
        List<MessageBytes> regions = new ArrayList<>();
        for (ReducedStream.Region region : reduced.regions()) {
            if (region.kind() == ReducedStream.Kind.INLINE) {
                regions.add(rpc.range((int) region.streamOffset(), (int) region.length()));
            }
        }
        return MessageBytes.concat(regions.toArray(new MessageBytes[0]));
    }
}
