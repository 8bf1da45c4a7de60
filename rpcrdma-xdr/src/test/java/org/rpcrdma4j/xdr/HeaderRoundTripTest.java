package org.rpcrdma4j.xdr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Encode-then-decode properties over random headers, and the extremes of every unsigned field. */
class HeaderRoundTripTest {

    private static final long SEED = Long.getLong("rpcrdma4j.seed", System.nanoTime());

    @Test
    void randomHeadersSurviveTheRoundTrip() throws RpcRdmaDecodeException {
        Random random = new Random(SEED);
        HeaderDecoder decoder = new HeaderDecoder();
        for (int n = 0; n < 2000; n++) {
            RpcRdmaHeader header = randomHeader(random);
            int payload = 4 * random.nextInt(64) + maxReadInline(header);
            // Encode at an odd offset into a little-endian buffer: neither may matter.
            ByteBuffer buffer = ByteBuffer.allocate(3 + HeaderEncoder.encodedLength(header) + payload)
                    .order(ByteOrder.LITTLE_ENDIAN);
            int written = HeaderEncoder.encode(header, buffer, 3);

            DecodedHeader decoded = decoder.decode(buffer, 3, written + payload);

            assertThat(decoded.header()).as("seed %d, header %d", SEED, n).isEqualTo(header);
            assertThat(decoded.headerLength()).isEqualTo(written);
            assertThat(decoded.payloadOffset()).isEqualTo(3 + written);
            assertThat(decoded.payloadLength()).isEqualTo(payload);
        }
    }

    @Test
    void unsignedExtremesSurvive() throws RpcRdmaDecodeException {
        Segment max = new Segment(0xffffffff, 0xffffffff, 0xffffffffffffffffL);
        Segment high = new Segment(0x80000000, 0x80000000, 0x8000000000000000L);
        RpcRdmaHeader header = RpcRdmaHeader.msg(0xffffffff, 0xffffffff,
                List.of(new ReadSegment(0xfffffffc, high)), List.of(new WriteChunk(List.of(max, high))),
                new ReplyChunk(List.of(max)));
        byte[] bytes = new byte[HeaderEncoder.encodedLength(header)];
        HeaderEncoder.encode(header, ByteBuffer.wrap(bytes), 0);

        // The Read chunk sits far past the (empty) inline part: only the rules that need a
        // message around it may refuse it, the codec itself keeps every bit.
        RpcRdmaDecodeException e = org.assertj.core.api.Assertions.catchThrowableOfType(
                RpcRdmaDecodeException.class, () -> new HeaderDecoder().decode(bytes));
        assertThat(e.rule()).isEqualTo(Rule.READ_CHUNK_OUTSIDE_MESSAGE);

        RpcRdmaHeader withoutRead = RpcRdmaHeader.msg(0xffffffff, 0xffffffff, List.of(),
                header.writeList(), header.replyChunk());
        byte[] replyBytes = new byte[HeaderEncoder.encodedLength(withoutRead)];
        HeaderEncoder.encode(withoutRead, ByteBuffer.wrap(replyBytes), 0);
        RpcRdmaHeader decoded = new HeaderDecoder().decode(replyBytes).header();
        assertThat(decoded).isEqualTo(withoutRead);
        assertThat(decoded.unsignedXid()).isEqualTo(0xffffffffL);
        assertThat(decoded.writeList().get(0).segments().get(0).unsignedHandle()).isEqualTo(0xffffffffL);
        assertThat(Long.toUnsignedString(decoded.replyChunk().segments().get(0).offset()))
                .isEqualTo("18446744073709551615");
        assertThat(decoded.writeList().get(0).length()).isEqualTo(0xffffffffL + 0x80000000L);
    }

    @Test
    void encoderRefusesABufferTooSmall() {
        RpcRdmaHeader header = RpcRdmaHeader.msg(1, 1, List.of(), List.of(), null);
        assertThatThrownBy(() -> HeaderEncoder.encode(header, ByteBuffer.allocate(27), 0))
                .isInstanceOf(IndexOutOfBoundsException.class);
        assertThat(HeaderEncoder.encode(header, ByteBuffer.allocate(28), 0)).isEqualTo(28);
    }

    @Test
    void modelRefusesWhatCannotBeSent() {
        assertThatThrownBy(() -> new RpcRdmaHeader(1, 1, 1, Proc.RDMA_DONE, null, null, null, null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RpcRdmaHeader(1, 1, 1, Proc.RDMA_MSGP, null, null, null, null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RpcRdmaHeader(1, 1, 1, Proc.RDMA_ERROR, null, null, null, null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RpcRdmaHeader(1, 1, 1, Proc.RDMA_MSG, null, null, null, RdmaError.errChunk()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new WriteChunk(List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RdmaError(ErrorCode.ERR_CHUNK, 1, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void readChunksGroupByPositionInPositionOrder() {
        Segment a = new Segment(1, 8, 0);
        Segment b = new Segment(2, 8, 0);
        Segment c = new Segment(3, 8, 0);
        RpcRdmaHeader header = RpcRdmaHeader.nomsg(1, 1, List.of(new ReadSegment(64, a), new ReadSegment(0, b),
                new ReadSegment(64, c)), null, null);

        assertThat(header.readChunks()).containsExactly(new ReadChunk(0, List.of(b)), new ReadChunk(64, List.of(a, c)));
        assertThat(new ReadChunk(64, List.of(a, c)).toReadSegments())
                .containsExactly(new ReadSegment(64, a), new ReadSegment(64, c));
    }

    /** Random headers within the default limits whose Read chunks lie inside a payload of the given size. */
    private static RpcRdmaHeader randomHeader(Random random) {
        int xid = random.nextInt();
        int credits = random.nextInt();
        if (random.nextInt(10) == 0) {
            RdmaError error = random.nextBoolean() ? RdmaError.errChunk() : RdmaError.errVers(random.nextInt(), random.nextInt());
            return RpcRdmaHeader.error(xid, 1, credits, error);
        }
        List<ReadSegment> reads = new ArrayList<>();
        int chunks = random.nextInt(3);
        long position = 0;
        for (int c = 0; c < chunks; c++) {
            position += 4 * (1 + random.nextInt(16));
            long chunkLength = 0;
            for (int s = random.nextInt(3); s >= 0; s--) {
                int length = random.nextInt(256);
                reads.add(new ReadSegment((int) position, new Segment(random.nextInt(), length, random.nextLong())));
                chunkLength += length;
            }
            position += RoundUp.roundUp(chunkLength);
        }
        List<WriteChunk> writes = new ArrayList<>();
        for (int c = random.nextInt(4); c > 0; c--) {
            writes.add(new WriteChunk(segments(random)));
        }
        ReplyChunk reply = random.nextBoolean() ? new ReplyChunk(segments(random)) : null;
        boolean nomsg = random.nextBoolean() && (!reads.isEmpty() || !writes.isEmpty() || reply != null);
        return nomsg ? RpcRdmaHeader.nomsg(xid, credits, reads, writes, reply)
                : RpcRdmaHeader.msg(xid, credits, reads, writes, reply);
    }

    private static List<Segment> segments(Random random) {
        List<Segment> segments = new ArrayList<>();
        for (int s = 1 + random.nextInt(16); s > 0; s--) {
            segments.add(new Segment(random.nextInt(), random.nextInt(), random.nextLong()));
        }
        return segments;
    }

    /** The inline bytes the Read chunks of a header need in front of them. */
    private static int maxReadInline(RpcRdmaHeader header) {
        long needed = 0;
        long consumed = 0;
        for (ReadChunk chunk : header.readChunks()) {
            needed = Math.max(needed, chunk.unsignedPosition() - consumed);
            consumed += RoundUp.roundUp(chunk.length());
        }
        return (int) needed;
    }
}
