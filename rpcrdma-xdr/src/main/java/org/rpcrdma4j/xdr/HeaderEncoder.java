package org.rpcrdma4j.xdr;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;

/**
 * Encodes an {@link RpcRdmaHeader} in XDR (big-endian) into a caller-supplied buffer. Stateless; the
 * encoding loops are indexed so that encoding does not allocate.
 */
public final class HeaderEncoder {

    /**
     * The length of an RDMA_MSG or RDMA_NOMSG header with no chunks: the four fixed words and three
     * empty lists (RFC 8166 §4.2), what every short message carries before its RPC message.
     */
    public static final int NO_CHUNKS_LENGTH = RpcRdmaHeader.FIXED_LENGTH + 3 * XdrWords.UNIT;

    private HeaderEncoder() {
    }

    /**
     * @param header the header to encode
     * @return the number of bytes {@link #encode} writes for it
     */
    public static int encodedLength(RpcRdmaHeader header) {
        if (header.proc() == Proc.RDMA_ERROR) {
            return RpcRdmaHeader.FIXED_LENGTH + header.error().encodedLength();
        }
        int length = NO_CHUNKS_LENGTH;
        length += header.readList().size() * (XdrWords.UNIT + ReadSegment.ENCODED_LENGTH);
        List<WriteChunk> writes = header.writeList();
        for (int i = 0; i < writes.size(); i++) {
            length += 2 * XdrWords.UNIT + writes.get(i).segments().size() * Segment.ENCODED_LENGTH;
        }
        if (header.replyChunk() != null) {
            length += XdrWords.UNIT + header.replyChunk().segments().size() * Segment.ENCODED_LENGTH;
        }
        return length;
    }

    /**
     * Writes the header at {@code dst[offset]}; the buffer's position and byte order are neither used nor
     * changed.
     *
     * @param header the header to encode
     * @param dst    the buffer to write into
     * @param offset index of the first byte to write
     * @return the number of bytes written
     * @throws IndexOutOfBoundsException if the header does not fit between offset and the buffer's limit
     */
    public static int encode(RpcRdmaHeader header, ByteBuffer dst, int offset) {
        Objects.checkFromIndexSize(offset, encodedLength(header), dst.limit());
        int p = offset;
        XdrWords.putInt(dst, p, header.xid());
        XdrWords.putInt(dst, p + 4, header.vers());
        XdrWords.putInt(dst, p + 8, header.credits());
        XdrWords.putInt(dst, p + 12, header.proc().value());
        p += RpcRdmaHeader.FIXED_LENGTH;
        if (header.proc() == Proc.RDMA_ERROR) {
            RdmaError error = header.error();
            XdrWords.putInt(dst, p, error.code().value());
            p += XdrWords.UNIT;
            if (error.code() == ErrorCode.ERR_VERS) {
                XdrWords.putInt(dst, p, error.low());
                XdrWords.putInt(dst, p + 4, error.high());
                p += 2 * XdrWords.UNIT;
            }
            return p - offset;
        }
        List<ReadSegment> reads = header.readList();
        for (int i = 0; i < reads.size(); i++) {
            XdrWords.putInt(dst, p, 1);
            XdrWords.putInt(dst, p + 4, reads.get(i).position());
            p = putSegment(dst, p + 8, reads.get(i).segment());
        }
        XdrWords.putInt(dst, p, 0);
        p += XdrWords.UNIT;
        List<WriteChunk> writes = header.writeList();
        for (int i = 0; i < writes.size(); i++) {
            XdrWords.putInt(dst, p, 1);
            p = putCountedArray(dst, p + XdrWords.UNIT, writes.get(i).segments());
        }
        XdrWords.putInt(dst, p, 0);
        p += XdrWords.UNIT;
        if (header.replyChunk() == null) {
            XdrWords.putInt(dst, p, 0);
            p += XdrWords.UNIT;
        } else {
            XdrWords.putInt(dst, p, 1);
            p = putCountedArray(dst, p + XdrWords.UNIT, header.replyChunk().segments());
        }
        return p - offset;
    }

    private static int putCountedArray(ByteBuffer dst, int p, List<Segment> segments) {
        XdrWords.putInt(dst, p, segments.size());
        p += XdrWords.UNIT;
        for (int i = 0; i < segments.size(); i++) {
            p = putSegment(dst, p, segments.get(i));
        }
        return p;
    }

    private static int putSegment(ByteBuffer dst, int p, Segment segment) {
        XdrWords.putInt(dst, p, segment.handle());
        XdrWords.putInt(dst, p + 4, segment.length());
        XdrWords.putLong(dst, p + 8, segment.offset());
        return p + Segment.ENCODED_LENGTH;
    }
}
