package org.rpcrdma4j.testbed.trace;

import java.time.Instant;

/**
 * One UDP datagram over IPv4 of a capture: the link-layer header (Ethernet with at most one VLAN tag, or
 * Linux cooked SLL or SLL2), the IPv4 header and the UDP header read, the payload located in the frame.
 * What RoCEv2 packets ({@link RocePacket}) and the UDP device's frames are carried in.
 *
 * @param frame           1-based frame number of the capture
 * @param time            when it was captured, {@code null} if the capture does not say
 * @param source          the sender's IPv4 address
 * @param sourcePort      the sender's UDP port
 * @param destination     the receiver's IPv4 address
 * @param destinationPort the receiver's UDP port
 * @param bytes           the frame
 * @param from            index of the first payload byte
 * @param to              index after the last payload byte the frame holds: before {@code from + length}
 *                        when the capture's snapshot length cut the frame, or the datagram is fragmented
 * @param length          the payload length the UDP header gives
 * @param fragmented      whether this is the first of the IP fragments of a larger datagram, the rest of
 *                        which later frames hold (fragments after the first are not datagrams: no UDP header)
 */
public record UdpDatagram(int frame, Instant time, int source, int sourcePort, int destination, int destinationPort,
                          byte[] bytes, int from, int to, int length, boolean fragmented) {

    private static final int ETHERTYPE_IPV4 = 0x0800;
    private static final int ETHERTYPE_VLAN = 0x8100;
    private static final int SLL_LENGTH = 16;
    private static final int SLL2_LENGTH = 20;
    private static final int UDP = 17;
    private static final int UDP_HEADER_LENGTH = 8;
    private static final int MORE_FRAGMENTS = 0x2000;
    private static final int FRAGMENT_OFFSET = 0x1FFF;

    /**
     * @param frame a captured frame
     * @return its UDP datagram, or {@code null} when it holds none: not IPv4, not UDP, an IP fragment after
     *         the first, or headers cut short
     */
    public static UdpDatagram parse(PcapReader.Frame frame) {
        byte[] b = frame.bytes();
        int ip;
        int ethertype;
        switch (frame.linkType()) {
            case PcapReader.LINKTYPE_LINUX_SLL -> {
                ip = SLL_LENGTH;
                ethertype = b.length < ip ? -1 : u16(b, 14);
            }
            case PcapReader.LINKTYPE_LINUX_SLL2 -> {
                ip = SLL2_LENGTH;
                ethertype = b.length < ip ? -1 : u16(b, 0);
            }
            default -> {
                ip = 14;
                ethertype = b.length < ip ? -1 : u16(b, 12);
                if (ethertype == ETHERTYPE_VLAN && b.length >= ip + 4) {
                    ethertype = u16(b, 16);
                    ip += 4;
                }
            }
        }
        if (ethertype != ETHERTYPE_IPV4 || b.length < ip + 20 || b[ip + 9] != UDP) {
            return null;
        }
        int ihl = (b[ip] & 0x0F) * 4;
        int fragment = u16(b, ip + 6);
        int udp = ip + ihl;
        if (ihl < 20 || (fragment & FRAGMENT_OFFSET) != 0 || b.length < udp + UDP_HEADER_LENGTH
                || u16(b, udp + 4) < UDP_HEADER_LENGTH) {
            return null;
        }
        int from = udp + UDP_HEADER_LENGTH;
        int length = u16(b, udp + 4) - UDP_HEADER_LENGTH;
        return new UdpDatagram(frame.number(), frame.time(), u32(b, ip + 12), u16(b, udp), u32(b, ip + 16),
                u16(b, udp + 2), b, from, Math.min(b.length, from + length), length, (fragment & MORE_FRAGMENTS) != 0);
    }

    /** @return whether the frame holds the whole payload */
    public boolean whole() {
        return to - from == length && !fragmented;
    }

    /** @return the sender as {@code a.b.c.d:port} */
    public String sourceAddress() {
        return address(source, sourcePort);
    }

    /** @return the receiver as {@code a.b.c.d:port} */
    public String destinationAddress() {
        return address(destination, destinationPort);
    }

    private static String address(int ip, int port) {
        return (ip >>> 24) + "." + (ip >>> 16 & 0xFF) + "." + (ip >>> 8 & 0xFF) + "." + (ip & 0xFF) + ":" + port;
    }

    private static int u16(byte[] b, int at) {
        return (b[at] & 0xFF) << 8 | b[at + 1] & 0xFF;
    }

    private static int u32(byte[] b, int at) {
        return (b[at] & 0xFF) << 24 | (b[at + 1] & 0xFF) << 16 | (b[at + 2] & 0xFF) << 8 | b[at + 3] & 0xFF;
    }
}
