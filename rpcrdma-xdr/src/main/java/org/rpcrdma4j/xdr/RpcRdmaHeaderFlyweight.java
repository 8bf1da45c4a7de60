package org.rpcrdma4j.xdr;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The allocation-free, validating view of a received RPC-over-RDMA Version One header, for the
 * transport's hot path. {@link #wrap} checks the whole header against every {@link Rule} and, if it
 * passes, the getters read fields straight from the buffer.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |                         rdma_xid                              |  0
 * |                         rdma_vers (1)                         |  4
 * |                         rdma_credit                           |  8
 * |                         rdma_proc                             | 12
 * +---------------------------------------------------------------+
 * | Read list:  { 1 | position | handle | length | offset(64) }* 0 | 16
 * | Write list: { 1 | count | { handle | length | offset(64) }^count }* 0
 * | Reply chunk: 0 | 1 count { handle | length | offset(64) }^count
 * +---------------------------------------------------------------+
 * | RDMA_ERROR instead of the lists: rdma_err [ low | high ]      | 16
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <p>Every count is checked against the configured {@link DecodeLimits} and against the bytes
 * present before it is used. The view keeps a reference to the buffer it wraps and does not copy it:
 * the caller keeps the buffer unchanged while it reads fields. One instance serves one thread and can
 * be reused for any number of messages; only a rejected message allocates (its exception).
 */
public final class RpcRdmaHeaderFlyweight {

    /** Offset of {@code rdma_xid}. */
    public static final int XID_OFFSET = 0;
    /** Offset of {@code rdma_vers}. */
    public static final int VERS_OFFSET = 4;
    /** Offset of {@code rdma_credit}. */
    public static final int CREDITS_OFFSET = 8;
    /** Offset of {@code rdma_proc}. */
    public static final int PROC_OFFSET = 12;
    /** Offset of the first chunk-list word, or of {@code rdma_err}. */
    public static final int BODY_OFFSET = RpcRdmaHeader.FIXED_LENGTH;

    /** A Read-list entry: discriminator, position, then a segment. */
    private static final int READ_ENTRY_LENGTH = XdrWords.UNIT + ReadSegment.ENCODED_LENGTH;
    private static final int DISCRIMINATOR_ABSENT = 0;
    private static final int DISCRIMINATOR_PRESENT = 1;

    private final DecodeLimits limits;
    /** Buffer index of each Write chunk's segment-count word. */
    private final int[] writeChunkIndex;

    private ByteBuffer buffer;
    private int base;
    private int messageLength;
    private Proc proc;
    private int headerLength;
    private int readEntries;
    private int writeChunks;
    /** Buffer index of the Reply chunk's segment-count word, or -1 when there is none. */
    private int replyChunkIndex;

    /** Creates a view that enforces {@link DecodeLimits#DEFAULT}. */
    public RpcRdmaHeaderFlyweight() {
        this(DecodeLimits.DEFAULT);
    }

    /**
     * Creates a view that enforces the given limits.
     *
     * @param limits the bounds on counts read from the wire
     */
    public RpcRdmaHeaderFlyweight(DecodeLimits limits) {
        this.limits = Objects.requireNonNull(limits, "limits");
        this.writeChunkIndex = new int[limits.maxWriteChunks()];
    }

    /**
     * Validates the message at {@code buffer[offset, offset + length)} and points this view at it.
     *
     * @param buffer the received bytes (an RDMA Send payload); its position and byte order are
     *               neither used nor changed
     * @param offset index of the first header byte
     * @param length bytes in the message: the header and the inline RPC payload after it
     * @return this view
     * @throws RpcRdmaDecodeException if the message breaks a rule; it names the rule and the answer
     * @throws IndexOutOfBoundsException if the range does not lie below the buffer's limit
     */
    public RpcRdmaHeaderFlyweight wrap(ByteBuffer buffer, int offset, int length) throws RpcRdmaDecodeException {
        Objects.checkFromIndexSize(offset, length, buffer.limit());
        this.buffer = null;
        this.proc = null;
        this.readEntries = 0;
        this.writeChunks = 0;
        this.replyChunkIndex = -1;

        if (length < XdrWords.UNIT) {
            throw RpcRdmaDecodeException.withoutXid(Rule.NO_XID,
                    "message of " + length + " bytes has no XID (needs 4)");
        }
        int xid = XdrWords.getInt(buffer, offset + XID_OFFSET);
        if (length < RpcRdmaHeader.FIXED_LENGTH) {
            String message = "header of " + length + " bytes is shorter than its four fixed words (16 bytes)";
            if (length < VERS_OFFSET + XdrWords.UNIT) {
                throw RpcRdmaDecodeException.withXid(Rule.SHORT_HEADER, xid, message);
            }
            int vers = XdrWords.getInt(buffer, offset + VERS_OFFSET);
            throw RpcRdmaDecodeException.withHeader(Rule.SHORT_HEADER, xid, vers, message);
        }
        int vers = XdrWords.getInt(buffer, offset + VERS_OFFSET);
        int procValue = XdrWords.getInt(buffer, offset + PROC_OFFSET);
        int end = offset + length;
        int p;
        if (procValue == Proc.RDMA_ERROR.value()) {
            // Before the version check: an RDMA_ERROR echoes the version of the message that failed
            // (RFC 8166 §4.5), which is how ERR_VERS reaches a requester speaking another version.
            p = checkErrorBody(buffer, offset, end, xid, vers);
        } else {
            if (vers != RpcRdmaHeader.VERSION) {
                throw RpcRdmaDecodeException.withHeader(Rule.BAD_VERSION, xid, vers,
                        "version " + Integer.toUnsignedString(vers) + " is not supported (only 1)");
            }
            Proc decoded = Proc.fromValue(procValue);
            if (decoded == null) {
                throw RpcRdmaDecodeException.withHeader(Rule.UNKNOWN_PROC, xid, vers,
                        "rdma_proc " + Integer.toUnsignedString(procValue) + " names no procedure");
            }
            switch (decoded) {
                case RDMA_MSGP -> throw RpcRdmaDecodeException.withHeader(Rule.RDMA_MSGP, xid, vers,
                        "RDMA_MSGP is reserved and never sent");
                case RDMA_DONE -> throw RpcRdmaDecodeException.withHeader(Rule.RDMA_DONE, xid, vers,
                        "RDMA_DONE is reserved; dropped");
                default -> {
                }
            }
            p = checkChunkLists(buffer, offset, end, xid, vers);
            if (decoded == Proc.RDMA_NOMSG && readEntries == 0 && writeChunks == 0 && replyChunkIndex < 0) {
                throw RpcRdmaDecodeException.withHeader(Rule.NOMSG_WITHOUT_CHUNKS, xid, vers,
                        "RDMA_NOMSG without chunks carries no RPC message");
            }
            if (readEntries > 0) {
                checkReadChunks(buffer, offset + BODY_OFFSET, end - p, xid, vers);
            }
        }
        this.buffer = buffer;
        this.base = offset;
        this.messageLength = length;
        this.headerLength = p - offset;
        this.proc = Proc.fromValue(procValue);
        return this;
    }

    /** Checks the body of an RDMA_ERROR; returns the index after it. Malformed ones are dropped. */
    private static int checkErrorBody(ByteBuffer buffer, int offset, int end, int xid, int vers)
            throws RpcRdmaDecodeException {
        int p = offset + BODY_OFFSET;
        if (end - p < XdrWords.UNIT) {
            throw RpcRdmaDecodeException.withHeader(Rule.BAD_RDMA_ERROR, xid, vers, "RDMA_ERROR without rdma_err");
        }
        int code = XdrWords.getInt(buffer, p);
        p += XdrWords.UNIT;
        ErrorCode errorCode = ErrorCode.fromValue(code);
        if (errorCode == null) {
            throw RpcRdmaDecodeException.withHeader(Rule.BAD_RDMA_ERROR, xid, vers,
                    "RDMA_ERROR with unknown rdma_err " + Integer.toUnsignedString(code));
        }
        if (errorCode == ErrorCode.ERR_VERS) {
            if (end - p < 2 * XdrWords.UNIT) {
                throw RpcRdmaDecodeException.withHeader(Rule.BAD_RDMA_ERROR, xid, vers,
                        "ERR_VERS without its version range");
            }
            p += 2 * XdrWords.UNIT;
        }
        return p;
    }

    /** Walks the Read list, Write list and Reply chunk; returns the index after them. */
    private int checkChunkLists(ByteBuffer buffer, int offset, int end, int xid, int vers)
            throws RpcRdmaDecodeException {
        int p = offset + BODY_OFFSET;
        int maxReadEntries = limits.maxReadSegments();
        while (discriminator(buffer, p, end, xid, vers, "Read list")) {
            if (end - p < READ_ENTRY_LENGTH) {
                throw truncated(xid, vers, "Read list entry");
            }
            int position = XdrWords.getInt(buffer, p + 4);
            if ((position & 3) != 0) {
                throw RpcRdmaDecodeException.withHeader(Rule.READ_POSITION_UNALIGNED, xid, vers,
                        "Read position " + Integer.toUnsignedString(position) + " is not a multiple of 4");
            }
            if (++readEntries > maxReadEntries) {
                throw RpcRdmaDecodeException.withHeader(Rule.TOO_MANY_SEGMENTS, xid, vers,
                        "Read list has more than " + maxReadEntries + " segments ("
                                + limits.maxReadChunks() + " chunks of " + limits.maxSegmentsPerChunk() + ")");
            }
            p += READ_ENTRY_LENGTH;
        }
        p += XdrWords.UNIT;

        while (discriminator(buffer, p, end, xid, vers, "Write list")) {
            if (writeChunks == writeChunkIndex.length) {
                throw RpcRdmaDecodeException.withHeader(Rule.TOO_MANY_WRITE_CHUNKS, xid, vers,
                        "Write list has more than " + writeChunkIndex.length + " chunks");
            }
            p += XdrWords.UNIT;
            writeChunkIndex[writeChunks++] = p;
            p = checkCountedArray(buffer, p, end, xid, vers, "Write chunk");
        }
        p += XdrWords.UNIT;

        if (discriminator(buffer, p, end, xid, vers, "Reply chunk")) {
            p += XdrWords.UNIT;
            replyChunkIndex = p;
            p = checkCountedArray(buffer, p, end, xid, vers, "Reply chunk");
        } else {
            p += XdrWords.UNIT;
        }
        return p;
    }

    /**
     * Reads an optional-data discriminator at {@code p}: true for 1 (item follows), false for 0.
     * Does not advance: the caller steps over it.
     */
    private static boolean discriminator(ByteBuffer buffer, int p, int end, int xid, int vers, String list)
            throws RpcRdmaDecodeException {
        if (end - p < XdrWords.UNIT) {
            throw truncated(xid, vers, list);
        }
        int value = XdrWords.getInt(buffer, p);
        if (value == DISCRIMINATOR_ABSENT) {
            return false;
        }
        if (value != DISCRIMINATOR_PRESENT) {
            throw RpcRdmaDecodeException.withHeader(Rule.BAD_DISCRIMINATOR, xid, vers,
                    list + " optional-data discriminator is " + Integer.toUnsignedString(value) + ", not 0 or 1");
        }
        return true;
    }

    /** Checks a counted array of segments whose count word is at {@code p}; returns the index after it. */
    private int checkCountedArray(ByteBuffer buffer, int p, int end, int xid, int vers, String chunk)
            throws RpcRdmaDecodeException {
        if (end - p < XdrWords.UNIT) {
            throw truncated(xid, vers, chunk + " segment count");
        }
        long count = Integer.toUnsignedLong(XdrWords.getInt(buffer, p));
        if (count == 0) {
            throw RpcRdmaDecodeException.withHeader(Rule.EMPTY_CHUNK, xid, vers, chunk + " has no segments");
        }
        if (count > limits.maxSegmentsPerChunk()) {
            throw RpcRdmaDecodeException.withHeader(Rule.TOO_MANY_SEGMENTS, xid, vers,
                    chunk + " has " + count + " segments, limit " + limits.maxSegmentsPerChunk());
        }
        p += XdrWords.UNIT;
        int bytes = (int) count * Segment.ENCODED_LENGTH;
        if (end - p < bytes) {
            throw truncated(xid, vers, chunk + " of " + count + " segments");
        }
        return p + bytes;
    }

    /** Messages are built only on failure, so that a good header costs no allocation. */
    private static RpcRdmaDecodeException truncated(int xid, int vers, String what) {
        return RpcRdmaDecodeException.withHeader(Rule.TRUNCATED_CHUNK_LIST, xid, vers, "header ends inside the " + what);
    }

    /**
     * Checks the Read chunks against the message they are inserted into (RFC 8166 §3.4.5), as Linux
     * {@code pcl_check_read_chunk_positions} does: positions are offsets in the unreduced XDR stream,
     * so a chunk's offset in what carries the message is its position minus the rounded-up lengths of
     * the chunks before it, and that may not lie past the end of the inline payload (or of the
     * Position-zero chunk, when the message travels in one). Chunks may not overlap. Also enforces the
     * per-chunk segment limit and the chunk-count limit.
     *
     * <p>Chunks are visited in ascending position, each found by one pass over the Read list (which
     * {@link DecodeLimits} bounds) that also sums its segments, so no list is built and the list may
     * come in any order. Unlike Linux, which subtracts the unpadded lengths, the rounded-up lengths are
     * subtracted: the pad of a chunked item is removed from the inline stream too (RFC 8166 §3.4.5).
     */
    private void checkReadChunks(ByteBuffer buffer, int listIndex, int inlineLength, int xid, int vers)
            throws RpcRdmaDecodeException {
        long bound = inlineLength;
        int chunks = 0;
        long previousPosition = -1;
        long previousEnd = 0;
        long consumed = 0;
        while (true) {
            long position = Long.MAX_VALUE;
            long length = 0;
            int segments = 0;
            for (int i = 0; i < readEntries; i++) {
                int entry = listIndex + i * READ_ENTRY_LENGTH;
                long candidate = Integer.toUnsignedLong(XdrWords.getInt(buffer, entry + 4));
                if (candidate <= previousPosition || candidate > position) {
                    continue;
                }
                if (candidate < position) {
                    position = candidate;
                    length = 0;
                    segments = 0;
                }
                length += Integer.toUnsignedLong(XdrWords.getInt(buffer, entry + 12));
                segments++;
            }
            if (segments == 0) {
                return;
            }
            if (segments > limits.maxSegmentsPerChunk()) {
                throw RpcRdmaDecodeException.withHeader(Rule.TOO_MANY_SEGMENTS, xid, vers,
                        "Read chunk at " + position + " has " + segments + " segments, limit "
                                + limits.maxSegmentsPerChunk());
            }
            if (++chunks > limits.maxReadChunks()) {
                throw RpcRdmaDecodeException.withHeader(Rule.TOO_MANY_READ_CHUNKS, xid, vers,
                        "Read list has more than " + limits.maxReadChunks() + " chunks");
            }
            previousPosition = position;
            if (position == 0) {
                // The Position-zero chunk is the message: later chunks are placed inside it.
                bound = length;
                continue;
            }
            if (position < previousEnd) {
                throw RpcRdmaDecodeException.withHeader(Rule.READ_CHUNKS_OVERLAP, xid, vers,
                        "Read chunk at " + position + " overlaps the chunk before it, which ends at " + previousEnd);
            }
            if (position - consumed > bound) {
                throw RpcRdmaDecodeException.withHeader(Rule.READ_CHUNK_OUTSIDE_MESSAGE, xid, vers,
                        "Read chunk at " + position + " lies at offset " + (position - consumed)
                                + " of a message of " + bound + " bytes");
            }
            long padded = RoundUp.roundUp(length);
            consumed += padded;
            previousEnd = position + padded;
        }
    }

    private void checkWrapped() {
        if (buffer == null) {
            throw new IllegalStateException("no valid header wrapped");
        }
    }

    /** @return the XID */
    public int xid() {
        checkWrapped();
        return XdrWords.getInt(buffer, base + XID_OFFSET);
    }

    /** @return the version: 1, or for an RDMA_ERROR the version of the message that failed */
    public int vers() {
        checkWrapped();
        return XdrWords.getInt(buffer, base + VERS_OFFSET);
    }

    /** @return the credit value, u32 */
    public int credits() {
        checkWrapped();
        return XdrWords.getInt(buffer, base + CREDITS_OFFSET);
    }

    /** @return RDMA_MSG, RDMA_NOMSG or RDMA_ERROR */
    public Proc proc() {
        checkWrapped();
        return proc;
    }

    /** @return bytes in the transport header */
    public int headerLength() {
        checkWrapped();
        return headerLength;
    }

    /** @return buffer index of the first byte after the header: where the inline RPC message starts */
    public int payloadOffset() {
        checkWrapped();
        return base + headerLength;
    }

    /** @return bytes after the header in the message */
    public int payloadLength() {
        checkWrapped();
        return messageLength - headerLength;
    }

    /** @return the number of entries (segments) in the Read list */
    public int readSegmentCount() {
        checkWrapped();
        return readEntries;
    }

    /**
     * @param i index in the Read list
     * @return the position of Read-list entry {@code i}, u32
     */
    public int readPosition(int i) {
        return XdrWords.getInt(buffer, readEntry(i) + 4);
    }

    /**
     * @param i index in the Read list
     * @return the handle of Read-list entry {@code i}, u32
     */
    public int readHandle(int i) {
        return XdrWords.getInt(buffer, readEntry(i) + 8);
    }

    /**
     * @param i index in the Read list
     * @return the length of Read-list entry {@code i}, u32
     */
    public int readLength(int i) {
        return XdrWords.getInt(buffer, readEntry(i) + 12);
    }

    /**
     * @param i index in the Read list
     * @return the offset of Read-list entry {@code i}, u64
     */
    public long readOffset(int i) {
        return XdrWords.getLong(buffer, readEntry(i) + 16);
    }

    private int readEntry(int i) {
        checkWrapped();
        return base + BODY_OFFSET + Objects.checkIndex(i, readEntries) * READ_ENTRY_LENGTH;
    }

    /** @return the number of chunks in the Write list */
    public int writeChunkCount() {
        checkWrapped();
        return writeChunks;
    }

    /**
     * @param chunk index in the Write list
     * @return the number of segments of that Write chunk
     */
    public int writeSegmentCount(int chunk) {
        checkWrapped();
        return XdrWords.getInt(buffer, writeChunkIndex[Objects.checkIndex(chunk, writeChunks)]);
    }

    /**
     * @param chunk   index in the Write list
     * @param segment index in the chunk
     * @return the handle of that segment, u32
     */
    public int writeHandle(int chunk, int segment) {
        return XdrWords.getInt(buffer, writeSegment(chunk, segment));
    }

    /**
     * @param chunk   index in the Write list
     * @param segment index in the chunk
     * @return the length of that segment, u32
     */
    public int writeLength(int chunk, int segment) {
        return XdrWords.getInt(buffer, writeSegment(chunk, segment) + 4);
    }

    /**
     * @param chunk   index in the Write list
     * @param segment index in the chunk
     * @return the offset of that segment, u64
     */
    public long writeOffset(int chunk, int segment) {
        return XdrWords.getLong(buffer, writeSegment(chunk, segment) + 8);
    }

    private int writeSegment(int chunk, int segment) {
        int count = writeSegmentCount(chunk);
        return writeChunkIndex[chunk] + XdrWords.UNIT + Objects.checkIndex(segment, count) * Segment.ENCODED_LENGTH;
    }

    /** @return true when the header carries a Reply chunk */
    public boolean hasReplyChunk() {
        checkWrapped();
        return replyChunkIndex >= 0;
    }

    /** @return the number of segments of the Reply chunk, 0 when there is none */
    public int replySegmentCount() {
        checkWrapped();
        return replyChunkIndex < 0 ? 0 : XdrWords.getInt(buffer, replyChunkIndex);
    }

    /**
     * @param segment index in the Reply chunk
     * @return the handle of that segment, u32
     */
    public int replyHandle(int segment) {
        return XdrWords.getInt(buffer, replySegment(segment));
    }

    /**
     * @param segment index in the Reply chunk
     * @return the length of that segment, u32
     */
    public int replyLength(int segment) {
        return XdrWords.getInt(buffer, replySegment(segment) + 4);
    }

    /**
     * @param segment index in the Reply chunk
     * @return the offset of that segment, u64
     */
    public long replyOffset(int segment) {
        return XdrWords.getLong(buffer, replySegment(segment) + 8);
    }

    private int replySegment(int segment) {
        int count = replySegmentCount();
        return replyChunkIndex + XdrWords.UNIT + Objects.checkIndex(segment, count) * Segment.ENCODED_LENGTH;
    }

    /**
     * Builds the Read list of the wrapped header as records, without checking it again.
     *
     * @return the Read-list entries in wire order, empty when there are none
     */
    public List<ReadSegment> readList() {
        List<ReadSegment> list = new ArrayList<>(readSegmentCount());
        for (int i = 0; i < readEntries; i++) {
            list.add(new ReadSegment(readPosition(i), new Segment(readHandle(i), readLength(i), readOffset(i))));
        }
        return list;
    }

    /**
     * Builds the Read chunks of the wrapped header (RFC 8166 §3.4.5), without checking them again:
     * {@link #wrap} checked their positions, overlaps and counts.
     *
     * @return the Read chunks by ascending position, as {@link ReadChunk#group} groups them
     */
    public List<ReadChunk> readChunks() {
        return ReadChunk.group(readList());
    }

    /**
     * Builds the Write list of the wrapped header as records, without checking it again.
     *
     * @return the Write chunks in order, empty when there are none
     */
    public List<WriteChunk> writeList() {
        List<WriteChunk> list = new ArrayList<>(writeChunkCount());
        for (int c = 0; c < writeChunks; c++) {
            List<Segment> segments = new ArrayList<>(writeSegmentCount(c));
            for (int s = 0; s < writeSegmentCount(c); s++) {
                segments.add(new Segment(writeHandle(c, s), writeLength(c, s), writeOffset(c, s)));
            }
            list.add(new WriteChunk(segments));
        }
        return list;
    }

    /**
     * Builds the Reply chunk of the wrapped header as a record, without checking it again.
     *
     * @return the Reply chunk, or {@code null} when there is none
     */
    public ReplyChunk replyChunk() {
        if (!hasReplyChunk()) {
            return null;
        }
        List<Segment> segments = new ArrayList<>(replySegmentCount());
        for (int s = 0; s < replySegmentCount(); s++) {
            segments.add(new Segment(replyHandle(s), replyLength(s), replyOffset(s)));
        }
        return new ReplyChunk(segments);
    }

    /**
     * Builds the whole wrapped header as a record, without checking it again.
     *
     * @return the header
     */
    public RpcRdmaHeader toHeader() {
        return proc() == Proc.RDMA_ERROR
                ? RpcRdmaHeader.error(xid(), vers(), credits(), new RdmaError(errorCode(), errorLow(), errorHigh()))
                : new RpcRdmaHeader(xid(), vers(), credits(), proc, readList(), writeList(), replyChunk(), null);
    }

    /** @return the error code of an RDMA_ERROR */
    public ErrorCode errorCode() {
        checkError();
        return ErrorCode.fromValue(XdrWords.getInt(buffer, base + BODY_OFFSET));
    }

    /** @return the lowest supported version of an ERR_VERS, 0 for ERR_CHUNK */
    public int errorLow() {
        return errorCode() == ErrorCode.ERR_VERS ? XdrWords.getInt(buffer, base + BODY_OFFSET + 4) : 0;
    }

    /** @return the highest supported version of an ERR_VERS, 0 for ERR_CHUNK */
    public int errorHigh() {
        return errorCode() == ErrorCode.ERR_VERS ? XdrWords.getInt(buffer, base + BODY_OFFSET + 8) : 0;
    }

    private void checkError() {
        checkWrapped();
        if (proc != Proc.RDMA_ERROR) {
            throw new IllegalStateException(proc + " has no error body");
        }
    }
}
