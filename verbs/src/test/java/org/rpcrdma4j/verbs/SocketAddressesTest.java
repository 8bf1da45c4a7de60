package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class SocketAddressesTest {
    private static final LayoutFile C = LayoutFile.RDMA_CORE_44;

    @Test
    void ipv4IsSockaddrInWithThePortInNetworkOrder() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            InetSocketAddress address = new InetSocketAddress(InetAddress.getByName("10.99.0.1"), 20049);
            MemorySegment s = SocketAddresses.encode(address, arena);
            assertThat(s.byteSize()).isEqualTo(C.size("sockaddr_in"));
            assertThat((int) s.get(JAVA_SHORT, C.offset("sockaddr_in.sin_family"))).isEqualTo(C.constant("AF_INET"));
            long port = C.offset("sockaddr_in.sin_port");
            assertThat(s.asSlice(port, 2).toArray(JAVA_BYTE)).containsExactly(0x4e, 0x51);
            assertThat(s.asSlice(C.offset("sockaddr_in.sin_addr"), 4).toArray(JAVA_BYTE)).containsExactly(10, 99, 0, 1);
            assertThat(SocketAddresses.decode(s)).isEqualTo(address);
        }
    }

    @Test
    void ipv6IsSockaddrIn6WithItsScope() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            InetAddress ip = InetAddress.getByName("fe80::1%3");
            InetSocketAddress address = new InetSocketAddress(ip, 65535);
            MemorySegment s = SocketAddresses.encode(address, arena);
            assertThat(s.byteSize()).isEqualTo(C.size("sockaddr_in6"));
            assertThat((int) s.get(JAVA_SHORT, C.offset("sockaddr_in6.sin6_family"))).isEqualTo(C.constant("AF_INET6"));
            assertThat(s.get(JAVA_INT, C.offset("sockaddr_in6.sin6_scope_id"))).isEqualTo(3);
            assertThat(s.get(JAVA_BYTE, C.offset("sockaddr_in6.sin6_addr"))).isEqualTo((byte) 0xfe);
            InetSocketAddress decoded = SocketAddresses.decode(s);
            assertThat(decoded.getPort()).isEqualTo(65535);
            assertThat(decoded.getAddress().getAddress()).isEqualTo(ip.getAddress());
        }
    }

    @Test
    void anUnboundAddressDecodesToNullAndAnUnresolvedOneIsRefused() {
        try (Arena arena = Arena.ofConfined()) {
            assertThat(SocketAddresses.decode(arena.allocate(C.size("sockaddr_storage")))).isNull();
            assertThatThrownBy(() -> SocketAddresses.encode(InetSocketAddress.createUnresolved("nowhere", 1), arena))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }
}
