package org.rpcrdma4j.transport.conn;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.transport.FabricAddress;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.xdr.ConnectPrivateData;

class ControlMessageTest {

    private static final FabricAddress ADDRESS = new FabricAddress(new byte[32], new byte[16], 7);

    @Test
    void connectRoundTrips() {
        ControlMessage connect = ControlMessage.connect(TransportConfig.DEFAULT.privateData(), ADDRESS);
        ByteBuffer bytes = connect.encode();
        assertThat(ControlMessage.decode(bytes, 0, bytes.limit())).contains(connect);
    }

    @Test
    void acceptAndCloseRoundTrip() {
        for (ControlMessage message : new ControlMessage[] {
            ControlMessage.accept(TransportConfig.DEFAULT.privateData(), 42), ControlMessage.close()}) {
            ByteBuffer bytes = message.encode();
            assertThat(ControlMessage.decode(bytes, 0, bytes.limit())).contains(message);
        }
    }

    @Test
    void unknownPrivateDataMeansTheRfc8166Defaults() {
        ByteBuffer bytes = ControlMessage.accept(TransportConfig.DEFAULT.privateData(), 1).encode();
        bytes.putInt(4, 0x12345678);
        assertThat(ControlMessage.decode(bytes, 0, bytes.limit()).orElseThrow().privateData())
                .isEqualTo(ConnectPrivateData.DEFAULT);
        assertThat(InlineThresholds.of(TransportConfig.DEFAULT.privateData(), ConnectPrivateData.DEFAULT).send())
                .isEqualTo(1024);
    }

    @Test
    void aLengthBeyondTheBytesIsRejected() {
        ByteBuffer bytes = ControlMessage.connect(TransportConfig.DEFAULT.privateData(), ADDRESS).encode();
        bytes.putInt(12, 1 << 30);
        assertThat(ControlMessage.decode(bytes, 0, bytes.limit())).isEmpty();
        assertThat(ControlMessage.decode(bytes, 0, 3)).isEmpty();
    }
}
