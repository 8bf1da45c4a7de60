package org.rpcrdma4j.xdr;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Feeds arbitrary bytes to the decoder. It may only return a header or throw
 * {@link RpcRdmaDecodeException}; anything else (an unchecked exception, an error) is a finding. An
 * accepted header must re-encode to exactly the bytes it was decoded from, and the flyweight and the
 * record decoder must agree.
 *
 * <p>Under {@code mvn verify} this runs in regression mode over the inputs in
 * {@code src/test/resources/org/rpcrdma4j/xdr/HeaderDecoderFuzzTestInputs/decode/}. To fuzz:
 * {@code JAZZER_FUZZ=1 mvn -pl rpcrdma-xdr test -Dtest=HeaderDecoderFuzzTest}.
 */
class HeaderDecoderFuzzTest {

    private static final HeaderDecoder DECODER = new HeaderDecoder(new DecodeLimits(4, 3, 3));

    @FuzzTest(maxDuration = "10m")
    void decode(byte[] message) {
        DecodedHeader decoded;
        try {
            decoded = DECODER.decode(message);
        } catch (RpcRdmaDecodeException e) {
            assertThat(e.rule()).isNotNull();
            assertThat(e.answer(1).isPresent()).isEqualTo(e.action() != Action.DROP);
            return;
        }
        RpcRdmaHeader header = decoded.header();
        assertThat(decoded.headerLength() + decoded.payloadLength()).isEqualTo(message.length);
        byte[] encoded = new byte[HeaderEncoder.encodedLength(header)];
        HeaderEncoder.encode(header, ByteBuffer.wrap(encoded), 0);
        assertThat(encoded).isEqualTo(Arrays.copyOf(message, decoded.headerLength()));
    }
}
