package org.rpcrdma4j.xdr;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Decodes a received RPC-over-RDMA message into the record model, after the strict checks of
 * {@link RpcRdmaHeaderFlyweight}. Thread-safe; allocates the records. The transport's hot path uses the
 * flyweight directly.
 */
public final class HeaderDecoder {

    private final DecodeLimits limits;

    /** Creates a decoder that enforces {@link DecodeLimits#DEFAULT}. */
    public HeaderDecoder() {
        this(DecodeLimits.DEFAULT);
    }

    /**
     * Creates a decoder that enforces the given limits.
     *
     * @param limits the bounds on counts read from the wire
     */
    public HeaderDecoder(DecodeLimits limits) {
        this.limits = Objects.requireNonNull(limits, "limits");
    }

    /**
     * Decodes a whole received message.
     *
     * @param message the whole message
     * @return the header and where the RPC payload starts
     * @throws RpcRdmaDecodeException if the message breaks a rule
     */
    public DecodedHeader decode(byte[] message) throws RpcRdmaDecodeException {
        return decode(ByteBuffer.wrap(message), 0, message.length);
    }

    /**
     * Decodes the message at {@code buffer[offset, offset + length)}.
     *
     * @param buffer the received bytes; position and byte order are neither used nor changed
     * @param offset index of the first header byte
     * @param length bytes in the message, header and inline payload
     * @return the header and where the RPC payload starts
     * @throws RpcRdmaDecodeException if the message breaks a rule
     * @throws IndexOutOfBoundsException if the range does not lie below the buffer's limit
     */
    public DecodedHeader decode(ByteBuffer buffer, int offset, int length) throws RpcRdmaDecodeException {
        RpcRdmaHeaderFlyweight view = new RpcRdmaHeaderFlyweight(limits).wrap(buffer, offset, length);
        RpcRdmaHeader header = view.proc() == Proc.RDMA_ERROR
                ? RpcRdmaHeader.error(view.xid(), view.vers(), view.credits(),
                        new RdmaError(view.errorCode(), view.errorLow(), view.errorHigh()))
                : new RpcRdmaHeader(view.xid(), view.vers(), view.credits(), view.proc(), readList(view),
                        writeList(view), replyChunk(view), null);
        return new DecodedHeader(header, view.payloadOffset(), view.headerLength(), view.payloadLength());
    }

    private static List<ReadSegment> readList(RpcRdmaHeaderFlyweight view) {
        List<ReadSegment> list = new ArrayList<>(view.readSegmentCount());
        for (int i = 0; i < view.readSegmentCount(); i++) {
            list.add(new ReadSegment(view.readPosition(i),
                    new Segment(view.readHandle(i), view.readLength(i), view.readOffset(i))));
        }
        return list;
    }

    private static List<WriteChunk> writeList(RpcRdmaHeaderFlyweight view) {
        List<WriteChunk> list = new ArrayList<>(view.writeChunkCount());
        for (int c = 0; c < view.writeChunkCount(); c++) {
            List<Segment> segments = new ArrayList<>(view.writeSegmentCount(c));
            for (int s = 0; s < view.writeSegmentCount(c); s++) {
                segments.add(new Segment(view.writeHandle(c, s), view.writeLength(c, s), view.writeOffset(c, s)));
            }
            list.add(new WriteChunk(segments));
        }
        return list;
    }

    private static ReplyChunk replyChunk(RpcRdmaHeaderFlyweight view) {
        if (!view.hasReplyChunk()) {
            return null;
        }
        List<Segment> segments = new ArrayList<>(view.replySegmentCount());
        for (int s = 0; s < view.replySegmentCount(); s++) {
            segments.add(new Segment(view.replyHandle(s), view.replyLength(s), view.replyOffset(s)));
        }
        return new ReplyChunk(segments);
    }
}
