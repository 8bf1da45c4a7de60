package org.rpcrdma4j.xdr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** RFC 8797 private data; the Linux REQ/REP bytes are checked in {@link LinuxTraceVectorsTest}. */
class ConnectPrivateDataTest {

    @Test
    void encodesLinuxClientOffer() {
        assertThat(new ConnectPrivateData(true, 4096, 4096).toBytes()).isEqualTo(Xdr.hex("f6ab0e1801010303"));
        assertThat(new ConnectPrivateData(false, 1024, 262144).toBytes()).isEqualTo(Xdr.hex("f6ab0e18010000ff"));
    }

    @Test
    void otherFormatsAndVersionsMeanTheDefaultApplies() {
        assertThat(decode("f6ab0e1802010303")).isEmpty();
        assertThat(decode("f6ab0e1901010303")).isEmpty();
        assertThat(decode("f6ab0e180101")).isEmpty();
        assertThat(ConnectPrivateData.DEFAULT.maxRecvSize()).isEqualTo(1024);
        assertThat(ConnectPrivateData.DEFAULT.maxSendSize()).isEqualTo(1024);
    }

    @Test
    void unknownFlagsAndTrailingZerosAreIgnored() {
        assertThat(decode("f6ab0e18018003030000000000")).contains(new ConnectPrivateData(false, 4096, 4096));
    }

    @Test
    void sizesMustBeExpressible() {
        assertThatThrownBy(() -> new ConnectPrivateData(false, 1000, 4096)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ConnectPrivateData(false, 4096, 263168)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ConnectPrivateData(false, 4097, 4096)).isInstanceOf(IllegalArgumentException.class);
    }

    private static java.util.Optional<ConnectPrivateData> decode(String hex) {
        byte[] bytes = Xdr.hex(hex);
        return ConnectPrivateData.decode(ByteBuffer.wrap(bytes), 0, bytes.length);
    }
}
