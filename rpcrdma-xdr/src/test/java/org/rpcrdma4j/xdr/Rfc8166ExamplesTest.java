package org.rpcrdma4j.xdr;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The chunk-list encodings drawn in RFC 8166 §4.7 ("XDR Examples"), written in the RFC's own notation
 * (P position, H handle, L length, OO 64-bit offset, numbers are literal words) and expanded here into
 * bytes, then decoded and re-encoded.
 */
class Rfc8166ExamplesTest {

    /** Distinct, recognisable field values, handed out in order as the notation is expanded. */
    private long next = 0x10;
    private final List<Long> values = new ArrayList<>();

    /** Expands RFC 8166 §4.7 notation into XDR, recording the value given to each field. */
    private Xdr expand(Xdr xdr, String notation) {
        for (String token : notation.trim().split("\\s+")) {
            switch (token) {
                case "PHLOO" -> xdr.word(position()).word(field()).word(field()).hyper(hyper());
                case "HLOO" -> xdr.word(field()).word(field()).hyper(hyper());
                default -> xdr.word(Long.parseLong(token));
            }
        }
        return xdr;
    }

    /** Read positions stay on 4-byte boundaries and inside the message. */
    private long position() {
        values.add(8L);
        return 8;
    }

    private long field() {
        long v = next++;
        values.add(v);
        return v;
    }

    private long hyper() {
        long v = 0x8000000000000000L | next++;
        values.add(v);
        return v;
    }

    private DecodedHeader decode(byte[] message) throws RpcRdmaDecodeException {
        DecodedHeader decoded = new HeaderDecoder().decode(message);
        byte[] encoded = new byte[HeaderEncoder.encodedLength(decoded.header())];
        HeaderEncoder.encode(decoded.header(), ByteBuffer.wrap(encoded), 0);
        assertThat(encoded).isEqualTo(java.util.Arrays.copyOf(message, decoded.headerLength()));
        return decoded;
    }

    @Test
    void noChunksAreThreeZeroWords() throws RpcRdmaDecodeException {
        RpcRdmaHeader h = decode(expand(Xdr.words(7, 1, 32, 0), "0 0 0").toBytes()).header();

        assertThat(h.readList()).isEmpty();
        assertThat(h.writeList()).isEmpty();
        assertThat(h.replyChunk()).isNull();
    }

    @Test
    void readChunkOfThreeSegmentsAtOnePosition() throws RpcRdmaDecodeException {
        byte[] message = expand(Xdr.words(7, 1, 32, 0), "1 PHLOO 1 PHLOO 1 PHLOO 0  0  0").zeros(8).toBytes();

        RpcRdmaHeader h = decode(message).header();

        assertThat(h.readList()).hasSize(3);
        List<ReadChunk> chunks = h.readChunks();
        assertThat(chunks).hasSize(1);
        assertThat(chunks.get(0).position()).isEqualTo(8);
        for (int i = 0; i < 3; i++) {
            Segment s = chunks.get(0).segments().get(i);
            assertThat(s.unsignedHandle()).isEqualTo(values.get(4 * i + 1));
            assertThat(s.unsignedLength()).isEqualTo(values.get(4 * i + 2));
            assertThat(s.offset()).isEqualTo(values.get(4 * i + 3));
        }
        assertThat(chunks.get(0).length()).isEqualTo(values.get(2) + values.get(6) + values.get(10));
    }

    @Test
    void writeListOfAThreeAndATwoSegmentChunk() throws RpcRdmaDecodeException {
        byte[] message = expand(Xdr.words(7, 1, 32, 0), "0  1 3 HLOO HLOO HLOO 1 2 HLOO HLOO 0  0").toBytes();

        RpcRdmaHeader h = decode(message).header();

        assertThat(h.writeList()).hasSize(2);
        assertThat(h.writeList().get(0).segments()).hasSize(3);
        assertThat(h.writeList().get(1).segments()).hasSize(2);
        Segment last = h.writeList().get(1).segments().get(1);
        assertThat(last.unsignedHandle()).isEqualTo(values.get(12));
        assertThat(last.offset()).isEqualTo(values.get(14));
    }

    @Test
    void replyChunkOfTwoSegments() throws RpcRdmaDecodeException {
        byte[] message = expand(Xdr.words(7, 1, 32, 1), "0 0  1 2 HLOO HLOO").toBytes();

        DecodedHeader decoded = decode(message);

        assertThat(decoded.header().proc()).isEqualTo(Proc.RDMA_NOMSG);
        assertThat(decoded.header().replyChunk().segments()).hasSize(2);
        assertThat(decoded.header().replyChunk().length()).isEqualTo(values.get(1) + values.get(4));
        assertThat(decoded.payloadLength()).isZero();
    }
}
