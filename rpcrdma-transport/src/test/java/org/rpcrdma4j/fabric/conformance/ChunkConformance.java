package org.rpcrdma4j.fabric.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rpcrdma4j.transport.MessageShape.CALL_INLINE;
import static org.rpcrdma4j.transport.MessageShape.CALL_POSITION_ZERO;
import static org.rpcrdma4j.transport.MessageShape.CALL_READ_CHUNKS;
import static org.rpcrdma4j.transport.MessageShape.CALL_REPLY_CHUNK;
import static org.rpcrdma4j.transport.MessageShape.CALL_WRITE_CHUNKS;
import static org.rpcrdma4j.transport.MessageShape.REPLY_INLINE;
import static org.rpcrdma4j.transport.MessageShape.REPLY_REPLY_CHUNK;
import static org.rpcrdma4j.transport.MessageShape.REPLY_WRITE_CHUNKS;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.dcache.oncrpc4j.xdr.XdrInt;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.transport.MessageShape;
import org.rpcrdma4j.transport.TransportConfig;

/**
 * Every way a call and its reply travel (RFC 8166 §3.4–§3.5), over the fabric under test, with the
 * data compared and the way it travelled checked: inline up to the inline threshold, exactly at it and
 * one byte over it, for each chunk kind (a Position-zero Read chunk, Read chunks, a Write chunk, a
 * Reply chunk); each kind once at its largest, the 16 MiB of the default configuration; and Read
 * chunks with a Write or a Reply chunk in one call.
 */
public abstract class ChunkConformance extends ServiceFixture {

    /**
     * The largest opaque argument a call carries inline: the RDMA_MSG header (28 bytes), the call
     * header (40) and the opaque's length (4) take the rest of the 4096-byte inline threshold.
     */
    private static final int CALL_THRESHOLD = TransportConfig.DEFAULT_INLINE_SIZE - 28 - 40 - 4;
    /**
     * The largest opaque result a requester expects inline: the program's policy bounds the reply by
     * the data and {@link ChunkProgram#REPLY_OVERHEAD}, and xprtrdma's reply header reserve must fit
     * beside it in the 4096-byte inline threshold.
     */
    private static final int REPLY_THRESHOLD = TransportConfig.DEFAULT_INLINE_SIZE
            - DdpPolicy.ReplySize.REPLY_HEADER_RESERVE - ChunkProgram.REPLY_OVERHEAD;
    private static final int LARGEST = TransportConfig.DEFAULT_MAX_MESSAGE_SIZE;

    @BeforeEach
    final void serveAndConnect() throws Exception {
        serve(TransportConfig.DEFAULT);
        client = connect(TransportConfig.DEFAULT);
    }

    /** One call made and its answer checked. */
    private interface Call {
        void run() throws Exception;
    }

    /** @return how the call and its reply travelled: the shapes the client counted for them */
    private Set<MessageShape> travelled(Call call) throws Exception {
        Map<MessageShape, Long> before = client.statistics().shapes();
        call.run();
        Map<MessageShape, Long> after = client.statistics().shapes();
        Set<MessageShape> shapes = EnumSet.noneOf(MessageShape.class);
        for (MessageShape shape : MessageShape.values()) {
            if (after.get(shape) > before.get(shape)) {
                shapes.add(shape);
            }
        }
        return shapes;
    }

    /** SUM: an opaque argument no policy names, so a long call goes whole in a Position-zero Read chunk. */
    private Set<MessageShape> sum(int size) throws Exception {
        byte[] data = ChunkProgram.pattern(size);
        return travelled(() -> assertThat(call(ChunkProgram.SUM, new TestProgram.Opaque(data), new XdrInt())
                .intValue()).as("CRC of %d bytes", size).isEqualTo(ChunkProgram.crc(data)));
    }

    /** PUT: a DDP-eligible argument, which goes in a Read chunk when the call does not fit inline. */
    private Set<MessageShape> put(int size) throws Exception {
        byte[] data = ChunkProgram.pattern(size);
        return travelled(() -> assertThat(call(ChunkProgram.PUT, new TestProgram.Opaque(data), new XdrInt())
                .intValue()).as("CRC of %d bytes", size).isEqualTo(ChunkProgram.crc(data)));
    }

    /** GET: a DDP-eligible result, for which the call provides a Write chunk when it may not fit inline. */
    private Set<MessageShape> get(int size) throws Exception {
        return travelled(() -> assertThat(call(ChunkProgram.GET, new ChunkProgram.IntPair(size, 0),
                new ChunkProgram.GetResult()).data).as("GET of %d bytes", size).isEqualTo(ChunkProgram.pattern(size)));
    }

    /** LIST: a long result no policy names, for which the call provides a Reply chunk when it may not fit inline. */
    private Set<MessageShape> list(int size) throws Exception {
        return travelled(() -> assertThat(call(ChunkProgram.LIST, new ChunkProgram.IntPair(size, 0),
                new TestProgram.Opaque()).bytes).as("LIST of %d bytes", size).isEqualTo(ChunkProgram.pattern(size)));
    }

    @Test
    void aCallGoesInlineUpToTheThresholdThenInAPositionZeroReadChunk() throws Exception {
        assertThat(sum(CALL_THRESHOLD - 1)).containsExactlyInAnyOrder(CALL_INLINE, REPLY_INLINE);
        assertThat(sum(CALL_THRESHOLD)).containsExactlyInAnyOrder(CALL_INLINE, REPLY_INLINE);
        assertThat(sum(CALL_THRESHOLD + 1)).containsExactlyInAnyOrder(CALL_POSITION_ZERO, REPLY_INLINE);
    }

    @Test
    void aDdpArgumentGoesInlineUpToTheThresholdThenInAReadChunk() throws Exception {
        assertThat(put(CALL_THRESHOLD - 1)).containsExactlyInAnyOrder(CALL_INLINE, REPLY_INLINE);
        assertThat(put(CALL_THRESHOLD)).containsExactlyInAnyOrder(CALL_INLINE, REPLY_INLINE);
        assertThat(put(CALL_THRESHOLD + 1)).containsExactlyInAnyOrder(CALL_READ_CHUNKS, REPLY_INLINE);
    }

    @Test
    void aDdpResultComesInlineUpToTheThresholdThenInAWriteChunk() throws Exception {
        assertThat(get(REPLY_THRESHOLD - 1)).containsExactlyInAnyOrder(CALL_INLINE, REPLY_INLINE);
        assertThat(get(REPLY_THRESHOLD)).containsExactlyInAnyOrder(CALL_INLINE, REPLY_INLINE);
        assertThat(get(REPLY_THRESHOLD + 1))
                .containsExactlyInAnyOrder(CALL_INLINE, CALL_WRITE_CHUNKS, REPLY_WRITE_CHUNKS);
    }

    @Test
    void aLongResultComesInlineUpToTheThresholdThenInAReplyChunk() throws Exception {
        assertThat(list(REPLY_THRESHOLD - 1)).containsExactlyInAnyOrder(CALL_INLINE, REPLY_INLINE);
        assertThat(list(REPLY_THRESHOLD)).containsExactlyInAnyOrder(CALL_INLINE, REPLY_INLINE);
        assertThat(list(REPLY_THRESHOLD + 1))
                .containsExactlyInAnyOrder(CALL_INLINE, CALL_REPLY_CHUNK, REPLY_REPLY_CHUNK);
    }

    @Test
    void readChunksGoWithAWriteChunkOrAReplyChunkInOneCall() throws Exception {
        byte[] data = ChunkProgram.pattern(1 << 20);
        assertThat(travelled(() -> assertThat(call(ChunkProgram.ECHO_DDP, new TestProgram.Opaque(data),
                new TestProgram.Opaque()).bytes).isEqualTo(data)))
                .containsExactlyInAnyOrder(CALL_READ_CHUNKS, CALL_WRITE_CHUNKS, REPLY_WRITE_CHUNKS);
        assertThat(travelled(() -> assertThat(call(ChunkProgram.PUT_ECHO, new TestProgram.Opaque(data),
                new TestProgram.Opaque()).bytes).isEqualTo(data)))
                .containsExactlyInAnyOrder(CALL_READ_CHUNKS, CALL_REPLY_CHUNK, REPLY_REPLY_CHUNK);
    }

    @Test
    void thePositionZeroChunkCarriesTheLargestCall() throws Exception {
        // The chunk carries the whole call: its 40-byte header and the opaque's length besides the data.
        assertThat(sum(LARGEST - 44)).containsExactlyInAnyOrder(CALL_POSITION_ZERO, REPLY_INLINE);
    }

    @Test
    void aReadChunkCarriesTheLargestArgument() throws Exception {
        assertThat(put(LARGEST)).containsExactlyInAnyOrder(CALL_READ_CHUNKS, REPLY_INLINE);
    }

    @Test
    void aWriteChunkCarriesTheLargestResult() throws Exception {
        assertThat(get(LARGEST)).containsExactlyInAnyOrder(CALL_INLINE, CALL_WRITE_CHUNKS, REPLY_WRITE_CHUNKS);
    }

    @Test
    void theReplyChunkCarriesTheLargestReply() throws Exception {
        // The chunk is as large as the policy bounds the reply: the data and the program's overhead.
        assertThat(list(LARGEST - ChunkProgram.REPLY_OVERHEAD))
                .containsExactlyInAnyOrder(CALL_INLINE, CALL_REPLY_CHUNK, REPLY_REPLY_CHUNK);
    }
}
