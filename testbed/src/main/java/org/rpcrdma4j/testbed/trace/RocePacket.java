package org.rpcrdma4j.testbed.trace;

/**
 * One RoCEv2 packet of a capture (InfiniBand transport over UDP port 4791, IBTA Annex A17): the
 * datagram that carries it located ({@link UdpDatagram}), the 12-byte Base Transport Header read, and
 * the bytes after it up to the pad and the 4-byte invariant CRC. The extended headers each opcode carries (RETH, AETH,
 * IETH, ImmDt, DETH) are left to the reader of that opcode.
 *
 * @param frame       1-based frame number of the capture
 * @param source      the sender's IPv4 address
 * @param destination the receiver's IPv4 address
 * @param transport   the BTH transport type: {@link #RC} or {@link #UD}
 * @param opcode      the BTH operation within the transport type (low five bits of the opcode)
 * @param qp          the destination queue pair
 * @param psn         the packet sequence number (24 bits)
 * @param bytes       the frame (from an export: the bytes after the BTH)
 * @param from        index of the first byte after the BTH
 * @param to          index after the last payload byte (before the pad and the invariant CRC)
 * @param elided      whether the payload's bytes are not all known (a JSON Lines export may elide them,
 *                    {@link JsonLinesPackets}): they are zeros where unknown, and nothing built from them
 *                    may be compared
 */
record RocePacket(int frame, int source, int destination, int transport, int opcode, int qp, int psn, byte[] bytes,
                  int from, int to, boolean elided) {

    /** Transport type of reliable-connection opcodes. */
    static final int RC = 0;
    /** Transport type of unreliable-datagram opcodes. */
    static final int UD = 3;
    /** RDMA-CM ConnectRequest: the attribute of its CM MAD (IBTA 12.6). */
    static final int CM_REQ = 0x0010;
    /** RDMA-CM ConnectReply. */
    static final int CM_REP = 0x0013;

    private static final int DETH_LENGTH = 8;
    private static final int MGMT_CLASS_CM = 0x07;

    private static final int ROCE_PORT = 4791;
    private static final int BTH_LENGTH = 12;
    private static final int ICRC_LENGTH = 4;

    /**
     * @param frame a captured frame
     * @return its RoCEv2 packet, or {@code null} when it is not one
     */
    static RocePacket parse(PcapReader.Frame frame) {
        UdpDatagram datagram = UdpDatagram.parse(frame);
        if (datagram == null || datagram.destinationPort() != ROCE_PORT) {
            return null;
        }
        byte[] b = datagram.bytes();
        int bth = datagram.from();
        int end = datagram.to();
        if (end < bth + BTH_LENGTH + ICRC_LENGTH) {
            return null;
        }
        int pad = (b[bth + 1] >>> 4) & 3;
        int to = end - ICRC_LENGTH - pad;
        if (to < bth + BTH_LENGTH) {
            return null;
        }
        return new RocePacket(frame.number(), datagram.source(), datagram.destination(), (b[bth] & 0xFF) >>> 5,
                b[bth] & 0x1F, u32(b, bth + 4) & 0xFFFFFF, u32(b, bth + 8) & 0xFFFFFF, b, bth + BTH_LENGTH, to, false);
    }

    /** @return the payload length after the BTH */
    int length() {
        return to - from;
    }

    /** @return where a UD packet's MAD starts: after its DETH */
    int mad() {
        return from + DETH_LENGTH;
    }

    /** @return the attribute of the RDMA-CM MAD this packet carries ({@link #CM_REQ}, ...), or -1 if none */
    int cmAttribute() {
        int mad = mad();
        if (transport != UD || to < mad + 24 || bytes[mad + 1] != MGMT_CLASS_CM) {
            return -1;
        }
        return u16(bytes, mad + 16);
    }

    static int u16(byte[] b, int at) {
        return (b[at] & 0xFF) << 8 | b[at + 1] & 0xFF;
    }

    static int u32(byte[] b, int at) {
        return (b[at] & 0xFF) << 24 | (b[at + 1] & 0xFF) << 16 | (b[at + 2] & 0xFF) << 8 | b[at + 3] & 0xFF;
    }

    static long u64(byte[] b, int at) {
        return (long) u32(b, at) << 32 | u32(b, at + 4) & 0xFFFFFFFFL;
    }
}
