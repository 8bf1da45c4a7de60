package org.rpcrdma4j.testbed.capture;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32;

/**
 * One RoCEv2 frame (IBTA Annex A17) as an Ethernet frame: the headers below the InfiniBand transport, the
 * Base Transport Header, the extended headers its opcode carries, the payload padded to four bytes and
 * the invariant CRC.
 *
 * <pre>
 *  0               14              34      42                  54
 *  +---------------+---------------+-------+-------------------+------------+---------+-----+------+
 *  | Ethernet II   | IPv4, no opts | UDP   | BTH               | RETH/AETH/ | payload | pad | ICRC |
 *  | dst, src, 0800| proto 17, DF  | ->4791| opcode, P_Key,    | IETH/DETH  |         |     | (LE) |
 *  |               |               |       | dest QP, A, PSN   |            |         |     |      |
 *  +---------------+---------------+-------+-------------------+------------+---------+-----+------+
 * </pre>
 *
 * The UDP checksum is 0, as RoCEv2 allows over IPv4; the IPv4 header checksum and the ICRC are the real
 * ones, so a dissector that checks them finds them right. All fields big endian but the ICRC, which the
 * wire carries as Linux's rxe and the NICs store it: the CRC-32 in little-endian byte order.
 */
final class RoceFrame {

    static final int ETHERNET_LENGTH = 14;
    static final int IPV4_OFFSET = ETHERNET_LENGTH;
    static final int IPV4_LENGTH = 20;
    static final int UDP_OFFSET = IPV4_OFFSET + IPV4_LENGTH;
    static final int UDP_LENGTH = 8;
    static final int BTH_OFFSET = UDP_OFFSET + UDP_LENGTH;
    static final int BTH_LENGTH = 12;
    static final int ICRC_LENGTH = 4;
    /** The RoCEv2 destination port (IANA). */
    static final int ROCE_V2_PORT = 4791;

    /** RETH: virtual address (8), R_Key (4), DMA length (4). */
    static final int RETH_LENGTH = 16;
    /** AETH: syndrome (1), message sequence number (3). */
    static final int AETH_LENGTH = 4;
    /** IETH: the R_Key a Send with Invalidate invalidates. */
    static final int IETH_LENGTH = 4;
    /** DETH: Q_Key (4), reserved (1), source QP (3). */
    static final int DETH_LENGTH = 8;

    // RC opcodes (IBTA 9.2, table 38): transport type 000 in the top three bits.
    static final int RC_SEND_FIRST = 0x00;
    static final int RC_SEND_MIDDLE = 0x01;
    static final int RC_SEND_LAST = 0x02;
    static final int RC_SEND_ONLY = 0x04;
    static final int RC_RDMA_WRITE_FIRST = 0x06;
    static final int RC_RDMA_WRITE_MIDDLE = 0x07;
    static final int RC_RDMA_WRITE_LAST = 0x08;
    static final int RC_RDMA_WRITE_ONLY = 0x0A;
    static final int RC_RDMA_READ_REQUEST = 0x0C;
    static final int RC_RDMA_READ_RESPONSE_FIRST = 0x0D;
    static final int RC_RDMA_READ_RESPONSE_MIDDLE = 0x0E;
    static final int RC_RDMA_READ_RESPONSE_LAST = 0x0F;
    static final int RC_RDMA_READ_RESPONSE_ONLY = 0x10;
    static final int RC_SEND_LAST_WITH_INVALIDATE = 0x16;
    static final int RC_SEND_ONLY_WITH_INVALIDATE = 0x17;
    /** UD SEND_ONLY (transport type 011): how RDMA-CM's MADs travel, to QP 1. */
    static final int UD_SEND_ONLY = 0x64;

    private static final int ETHERTYPE_IPV4 = 0x0800;
    private static final int UDP = 17;
    private static final int DONT_FRAGMENT = 0x4000;
    private static final int TTL = 64;
    private static final int DEFAULT_P_KEY = 0xFFFF;
    private static final int ACK_REQUEST = 0x80;

    private RoceFrame() {
    }

    /**
     * Encodes one frame.
     *
     * @param source         the sender's IPv4 address
     * @param destination    the receiver's IPv4 address
     * @param udpSourcePort  the UDP source port (RoCEv2 leaves it to the sender, for ECMP)
     * @param identification the IPv4 identification
     * @param opcode         the BTH opcode, transport type included
     * @param destinationQp  the BTH destination queue pair (24 bits)
     * @param psn            the packet sequence number (24 bits)
     * @param extension      the extended headers the opcode carries, in order
     * @param payload        the payload, between position and limit (read, not consumed)
     * @return the frame
     */
    static byte[] encode(int source, int destination, int udpSourcePort, int identification, int opcode,
                         int destinationQp, int psn, byte[] extension, ByteBuffer payload) {
        int length = payload.remaining();
        int pad = -length & 3;
        int udpLength = UDP_LENGTH + BTH_LENGTH + extension.length + length + pad + ICRC_LENGTH;
        ByteBuffer f = ByteBuffer.allocate(UDP_OFFSET + udpLength);
        f.putShort((short) 0x0200).putInt(destination).putShort((short) 0x0200).putInt(source)
                .putShort((short) ETHERTYPE_IPV4);
        f.put((byte) 0x45).put((byte) 0).putShort((short) (IPV4_LENGTH + udpLength)).putShort((short) identification)
                .putShort((short) DONT_FRAGMENT).put((byte) TTL).put((byte) UDP).putShort((short) 0)
                .putInt(source).putInt(destination);
        f.putShort(IPV4_OFFSET + 10, (short) ipv4Checksum(f.array()));
        f.putShort((short) udpSourcePort).putShort((short) ROCE_V2_PORT).putShort((short) udpLength)
                .putShort((short) 0);
        f.put((byte) opcode).put((byte) (pad << 4)).putShort((short) DEFAULT_P_KEY)
                .putInt(destinationQp & 0xFFFFFF).putInt(ACK_REQUEST << 24 | psn & 0xFFFFFF);
        f.put(extension).put(payload.duplicate());
        f.position(f.position() + pad);
        f.order(ByteOrder.LITTLE_ENDIAN).putInt((int) icrc(f.array(), f.position()));
        return f.array();
    }

    /** The IPv4 header checksum (RFC 791): the ones' complement of the ones' complement sum of its words. */
    private static int ipv4Checksum(byte[] frame) {
        int sum = 0;
        for (int i = IPV4_OFFSET; i < IPV4_OFFSET + IPV4_LENGTH; i += 2) {
            sum += (frame[i] & 0xFF) << 8 | frame[i + 1] & 0xFF;
        }
        while (sum >>> 16 != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return ~sum & 0xFFFF;
    }

    /**
     * The invariant CRC of a RoCEv2 packet over IPv4 (IBTA Annex A17.7.1): CRC-32 over 64 one bits in
     * place of the LRH, then the IP, UDP and transport headers and the payload with its pad, the fields
     * routers change (IPv4 type of service, TTL and checksum; UDP checksum; the BTH's reserved byte that
     * holds FECN and BECN) taken as all ones.
     *
     * @param frame an Ethernet frame of a RoCEv2 packet over IPv4, without its options
     * @param end   where the ICRC starts
     * @return the ICRC as the CRC-32 value
     */
    static long icrc(byte[] frame, int end) {
        byte[] masked = new byte[IPV4_LENGTH + UDP_LENGTH + BTH_LENGTH];
        System.arraycopy(frame, IPV4_OFFSET, masked, 0, masked.length);
        masked[1] = (byte) 0xFF;
        masked[8] = (byte) 0xFF;
        masked[10] = (byte) 0xFF;
        masked[11] = (byte) 0xFF;
        masked[IPV4_LENGTH + 6] = (byte) 0xFF;
        masked[IPV4_LENGTH + 7] = (byte) 0xFF;
        masked[IPV4_LENGTH + UDP_LENGTH + 4] = (byte) 0xFF;
        CRC32 crc = new CRC32();
        crc.update(new byte[] {-1, -1, -1, -1, -1, -1, -1, -1});
        crc.update(masked);
        crc.update(frame, BTH_OFFSET + BTH_LENGTH, end - BTH_OFFSET - BTH_LENGTH);
        return crc.getValue();
    }
}
