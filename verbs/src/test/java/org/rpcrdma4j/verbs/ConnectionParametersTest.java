package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class ConnectionParametersTest {
    private static final LayoutFile C = LayoutFile.RDMA_CORE_44;

    private static byte at(MemorySegment s, String field) {
        return s.get(JAVA_BYTE, C.offset("rdma_conn_param." + field));
    }

    @Test
    void encodesPrivateDataAndCountsAsRdmaConnParam() {
        byte[] rfc8797 = {(byte) 0xf6, (byte) 0xab, 0x0e, 0x18, 1, 1, 3, 3};
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = new ConnectionParameters(rfc8797, 16, 8, 7, 6).encode(arena, 56);
            assertThat(s.byteSize()).isEqualTo(C.size("rdma_conn_param"));
            assertThat(at(s, "private_data_len")).isEqualTo((byte) 8);
            MemorySegment data = s.get(ADDRESS, C.offset("rdma_conn_param.private_data")).reinterpret(8);
            assertThat(data.toArray(JAVA_BYTE)).isEqualTo(rfc8797);
            assertThat(at(s, "responder_resources")).isEqualTo((byte) 16);
            assertThat(at(s, "initiator_depth")).isEqualTo((byte) 8);
            assertThat(at(s, "retry_count")).isEqualTo((byte) 7);
            assertThat(at(s, "rnr_retry_count")).isEqualTo((byte) 6);
            assertThat(at(s, "flow_control")).isZero();
        }
    }

    @Test
    void noPrivateDataIsANullPointer() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = new ConnectionParameters(null, 1, 1, 7, 7).encode(arena, 56);
            assertThat(s.get(ADDRESS, C.offset("rdma_conn_param.private_data"))).isEqualTo(MemorySegment.NULL);
            assertThat(at(s, "private_data_len")).isZero();
        }
    }

    @Test
    void privateDataBeyondTheCmMessagesRoomIsRefused() {
        ConnectionParameters p = new ConnectionParameters(new byte[57], 1, 1, 7, 7);
        try (Arena arena = Arena.ofConfined()) {
            assertThatThrownBy(() -> p.encode(arena, ConnectionParameters.MAX_CONNECT_PRIVATE_DATA))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("57");
            assertThat(p.encode(arena, ConnectionParameters.MAX_ACCEPT_PRIVATE_DATA).byteSize()).isPositive();
        }
        assertThatThrownBy(() -> new ConnectionParameters(new byte[197], 1, 1, 7, 7))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void countsOutOfRangeAreRefused() {
        assertThatThrownBy(() -> new ConnectionParameters(null, 256, 1, 7, 7)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ConnectionParameters(null, 1, -1, 7, 7)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ConnectionParameters(null, 1, 1, 8, 7)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ConnectionParameters(null, 1, 1, 7, 8)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rnrRetryCount");
    }

    @Test
    void privateDataIsCopiedInAndOut() {
        byte[] data = {1, 2, 3};
        ConnectionParameters p = new ConnectionParameters(data, 1, 1, 7, 7);
        data[0] = 9;
        p.privateData()[1] = 9;
        assertThat(p.privateData()).containsExactly(1, 2, 3);
    }
}
