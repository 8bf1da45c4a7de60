package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/** {@code struct sockaddr_in} and {@code sockaddr_in6} to and from {@link InetSocketAddress}. */
final class SocketAddresses {
    private static final long IN_PORT = Structs.offset(Structs.SOCKADDR_IN, "sin_port");
    private static final long IN_ADDR = Structs.offset(Structs.SOCKADDR_IN, "sin_addr");
    private static final long IN6_PORT = Structs.offset(Structs.SOCKADDR_IN6, "sin6_port");
    private static final long IN6_ADDR = Structs.offset(Structs.SOCKADDR_IN6, "sin6_addr");
    private static final long IN6_SCOPE = Structs.offset(Structs.SOCKADDR_IN6, "sin6_scope_id");

    private SocketAddresses() {
    }

    /** Encodes a resolved address; the family field is the first 16 bits of both structs. */
    static MemorySegment encode(InetSocketAddress address, SegmentAllocator allocator) {
        InetAddress ip = address.getAddress();
        if (ip == null) {
            throw new IllegalArgumentException("unresolved address " + address);
        }
        short port = Short.reverseBytes((short) address.getPort());
        if (ip instanceof Inet4Address) {
            MemorySegment s = allocator.allocate(Structs.SOCKADDR_IN);
            s.set(JAVA_SHORT, 0, (short) Constants.AF_INET);
            s.set(JAVA_SHORT, IN_PORT, port);
            MemorySegment.copy(ip.getAddress(), 0, s, JAVA_BYTE, IN_ADDR, 4);
            return s;
        }
        MemorySegment s = allocator.allocate(Structs.SOCKADDR_IN6);
        s.set(JAVA_SHORT, 0, (short) Constants.AF_INET6);
        s.set(JAVA_SHORT, IN6_PORT, port);
        MemorySegment.copy(ip.getAddress(), 0, s, JAVA_BYTE, IN6_ADDR, 16);
        s.set(JAVA_INT, IN6_SCOPE, ((Inet6Address) ip).getScopeId());
        return s;
    }

    /** Decodes an AF_INET or AF_INET6 address; null for any other family (AF_UNSPEC before binding). */
    static InetSocketAddress decode(MemorySegment sockaddr) {
        int family = sockaddr.get(JAVA_SHORT, 0);
        try {
            if (family == Constants.AF_INET) {
                byte[] ip = new byte[4];
                MemorySegment.copy(sockaddr, JAVA_BYTE, IN_ADDR, ip, 0, 4);
                return new InetSocketAddress(InetAddress.getByAddress(ip), port(sockaddr, IN_PORT));
            }
            if (family == Constants.AF_INET6) {
                byte[] ip = new byte[16];
                MemorySegment.copy(sockaddr, JAVA_BYTE, IN6_ADDR, ip, 0, 16);
                int scope = sockaddr.get(JAVA_INT, IN6_SCOPE);
                return new InetSocketAddress(Inet6Address.getByAddress(null, ip, scope), port(sockaddr, IN6_PORT));
            }
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
        return null;
    }

    private static int port(MemorySegment sockaddr, long offset) {
        return Short.toUnsignedInt(Short.reverseBytes(sockaddr.get(JAVA_SHORT, offset)));
    }
}
