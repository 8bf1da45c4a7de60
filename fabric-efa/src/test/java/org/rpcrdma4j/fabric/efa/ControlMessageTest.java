package org.rpcrdma4j.fabric.efa;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.xdr.ConnectPrivateData;

class ControlMessageTest {

    private static final FabricAddress ADDRESS = new FabricAddress(new byte[32], new byte[16], 7);

    @Test
    void connectRoundTrips() {
        ControlMessage connect = ControlMessage.connect(TransportConfig.DEFAULT.privateData(), ADDRESS, 5);
        ByteBuffer bytes = connect.encode();
        assertThat(ControlMessage.decode(bytes, 0, bytes.limit())).contains(connect);
    }

    @Test
    void acceptAndCloseRoundTrip() {
        for (ControlMessage message : new ControlMessage[] {
            ControlMessage.accept(TransportConfig.DEFAULT.privateData(), 5, 42), ControlMessage.close(42)}) {
            ByteBuffer bytes = message.encode();
            assertThat(ControlMessage.decode(bytes, 0, bytes.limit())).contains(message);
        }
    }

    @Test
    void overrunIsItsTypeAndTheReceiversIdBigEndian() {
        // Written out by hand from the layout above, not by the encoder: type 5, receiver's id 42.
        byte[] wire = {0, 0, 0, 5, 0, 0, 0, 42};
        assertThat(ControlMessage.decode(ByteBuffer.wrap(wire), 0, wire.length)).contains(ControlMessage.overrun(42));
        ByteBuffer encoded = ControlMessage.overrun(42).encode();
        byte[] bytes = new byte[encoded.remaining()];
        encoded.get(bytes);
        assertThat(bytes).containsExactly(wire);
        assertThat(ControlMessage.decode(ByteBuffer.allocate(12).put(wire).flip(), 0, 12)).isEmpty();
    }

    @Test
    void unknownPrivateDataMeansTheRfc8166Defaults() {
        ByteBuffer bytes = ControlMessage.accept(TransportConfig.DEFAULT.privateData(), 1, 2).encode();
        bytes.putInt(4, 0x12345678);
        assertThat(ControlMessage.decode(bytes, 0, bytes.limit()).orElseThrow().privateData())
                .isEqualTo(ConnectPrivateData.DEFAULT);
    }

    @Test
    void aLengthBeyondTheBytesIsRejected() {
        ByteBuffer bytes = ControlMessage.connect(TransportConfig.DEFAULT.privateData(), ADDRESS, 5).encode();
        bytes.putInt(16, 1 << 30);
        assertThat(ControlMessage.decode(bytes, 0, bytes.limit())).isEmpty();
        assertThat(ControlMessage.decode(bytes, 0, 3)).isEmpty();
    }

    @Test
    void messagesWithBytesLeftOverAreRejected() {
        ByteBuffer close = ControlMessage.close(1).encode();
        assertThat(ControlMessage.decode(ByteBuffer.allocate(12).put(close).flip(), 0, 12)).isEmpty();
        ByteBuffer accept = ControlMessage.accept(TransportConfig.DEFAULT.privateData(), 1, 2).encode();
        assertThat(ControlMessage.decode(accept, 0, accept.limit() - 4)).isEmpty();
    }
}
