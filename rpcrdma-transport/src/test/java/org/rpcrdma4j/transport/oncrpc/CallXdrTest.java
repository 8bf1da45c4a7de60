package org.rpcrdma4j.transport.oncrpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** A received call's bytes stay as they came while its reply is encoded. */
class CallXdrTest {

    @Test
    void theReplyIsEncodedBesideTheCallNotOverIt() throws Exception {
        byte[] call = ByteBuffer.allocate(12).putInt(0x1234).putInt(0).putInt(77).array();
        byte[] before = call.clone();
        CallXdr xdr = new CallXdr(call);
        xdr.beginDecoding();
        assertThat(xdr.xdrDecodeInt()).isEqualTo(0x1234);

        xdr.beginEncoding();
        for (int i = 0; i < 600; i++) {
            xdr.xdrEncodeInt(-1);
        }
        xdr.endEncoding();

        assertThat(call).isEqualTo(before);
        assertThat(xdr.asBuffer().remaining()).isEqualTo(2400);
        assertThat(xdr.asBuffer().getInt(0)).isEqualTo(-1);
    }
}
