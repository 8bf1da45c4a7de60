package org.rpcrdma4j.testbed.trace;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds the RDMA Sends of a RoCEv2 capture (InfiniBand transport over UDP port 4791, IBTA Annex A17):
 * Ethernet, IPv4 and UDP, then the 12-byte Base Transport Header and the extended headers each
 * opcode carries, then the payload up to the pad and the 4-byte invariant CRC. Reliable-connection
 * Send packets are put together per receiving address and queue pair (first, middle, last or only),
 * as Soft-RoCE sends them in order. The client is the side that sent the RDMA-CM ConnectRequest.
 */
public final class RoceSends {

    private static final int ETHERTYPE_IPV4 = 0x0800;
    private static final int ETHERTYPE_VLAN = 0x8100;
    private static final int UDP = 17;
    private static final int ROCE_PORT = 4791;
    private static final int BTH_LENGTH = 12;
    private static final int ICRC_LENGTH = 4;
    private static final int TRANSPORT_RC = 0;
    private static final int TRANSPORT_UD = 3;
    private static final int DETH_LENGTH = 8;
    /** The RDMA-CM ConnectRequest MAD: management class CM (0x07), attribute 0x0010 (IBTA 12.6). */
    private static final int MGMT_CLASS_CM = 0x07;
    private static final int CM_ATTRIBUTE_REQ = 0x0010;

    private static final int SEND_FIRST = 0x00;
    private static final int SEND_MIDDLE = 0x01;
    private static final int SEND_LAST = 0x02;
    private static final int SEND_LAST_WITH_IMMEDIATE = 0x03;
    private static final int SEND_ONLY = 0x04;
    private static final int SEND_ONLY_WITH_IMMEDIATE = 0x05;
    private static final int SEND_LAST_WITH_INVALIDATE = 0x16;
    private static final int SEND_ONLY_WITH_INVALIDATE = 0x17;

    private final Map<String, List<byte[]>> partial = new HashMap<>();
    private final List<RdmaSend> sends = new ArrayList<>();
    /** The client's IPv4 address; the ConnectRequest comes before any traffic of its connection. */
    private Integer clientAddress;

    private RoceSends() {
    }

    /**
     * @param pcap a capture of RoCEv2 traffic between two hosts
     * @return its RDMA Sends in the order they completed
     * @throws IOException if the capture cannot be read
     */
    public static List<RdmaSend> read(InputStream pcap) throws IOException {
        RoceSends reader = new RoceSends();
        PcapReader.read(pcap, reader::onFrame);
        return reader.sends;
    }

    private void onFrame(PcapReader.Frame frame) {
        byte[] b = frame.bytes();
        int p = 12;
        if (b.length < 14) {
            return;
        }
        int ethertype = u16(b, p);
        if (ethertype == ETHERTYPE_VLAN && b.length >= 18) {
            p += 4;
            ethertype = u16(b, p);
        }
        p += 2;
        if (ethertype != ETHERTYPE_IPV4 || b.length < p + 20 || b[p + 9] != UDP) {
            return;
        }
        int ihl = (b[p] & 0x0F) * 4;
        int source = u32(b, p + 12);
        int destination = u32(b, p + 16);
        int udp = p + ihl;
        if (b.length < udp + 8 || u16(b, udp + 2) != ROCE_PORT) {
            return;
        }
        int end = Math.min(b.length, udp + u16(b, udp + 4));
        int bth = udp + 8;
        if (end < bth + BTH_LENGTH + ICRC_LENGTH) {
            return;
        }
        int transport = (b[bth] & 0xFF) >>> 5;
        int operation = b[bth] & 0x1F;
        int pad = (b[bth + 1] >>> 4) & 3;
        int destinationQp = u32(b, bth + 4) & 0xFFFFFF;
        int payload = bth + BTH_LENGTH;
        int payloadEnd = end - ICRC_LENGTH - pad;
        if (transport == TRANSPORT_UD) {
            onDatagram(source, b, payload + DETH_LENGTH, payloadEnd);
        } else if (transport == TRANSPORT_RC) {
            if (operation == SEND_LAST_WITH_INVALIDATE || operation == SEND_ONLY_WITH_INVALIDATE) {
                payload += 4;                    // IETH
            } else if (operation == SEND_LAST_WITH_IMMEDIATE || operation == SEND_ONLY_WITH_IMMEDIATE) {
                payload += 4;                    // ImmDt
            }
            if (payload <= payloadEnd) {
                onSendPacket(frame.number(), operation, source, destination, destinationQp, b, payload, payloadEnd);
            }
        }
    }

    /** Notes the sender of the first CM ConnectRequest: the client. */
    private void onDatagram(int source, byte[] b, int mad, int end) {
        if (clientAddress == null && end >= mad + 24 && b[mad + 1] == MGMT_CLASS_CM && u16(b, mad + 16) == CM_ATTRIBUTE_REQ) {
            clientAddress = source;
        }
    }

    private void onSendPacket(int frame, int operation, int source, int destination, int qp, byte[] b, int from,
                              int to) {
        boolean first = operation == SEND_FIRST || operation == SEND_ONLY || operation == SEND_ONLY_WITH_IMMEDIATE
                || operation == SEND_ONLY_WITH_INVALIDATE;
        boolean last = operation == SEND_LAST || operation == SEND_LAST_WITH_IMMEDIATE
                || operation == SEND_LAST_WITH_INVALIDATE || operation == SEND_ONLY
                || operation == SEND_ONLY_WITH_IMMEDIATE || operation == SEND_ONLY_WITH_INVALIDATE;
        if (!first && !last && operation != SEND_MIDDLE) {
            return;
        }
        String key = destination + "/" + qp;
        if (first) {
            partial.put(key, new ArrayList<>());
        }
        List<byte[]> pieces = partial.get(key);
        if (pieces == null) {
            return;                              // the capture began inside this Send
        }
        pieces.add(Arrays.copyOfRange(b, from, to));
        if (last) {
            partial.remove(key);
            int length = pieces.stream().mapToInt(piece -> piece.length).sum();
            byte[] message = new byte[length];
            int at = 0;
            for (byte[] piece : pieces) {
                System.arraycopy(piece, 0, message, at, piece.length);
                at += piece.length;
            }
            sends.add(new RdmaSend(frame, clientAddress != null && source == clientAddress, message));
        }
    }

    private static int u16(byte[] b, int at) {
        return (b[at] & 0xFF) << 8 | b[at + 1] & 0xFF;
    }

    private static int u32(byte[] b, int at) {
        return (b[at] & 0xFF) << 24 | (b[at + 1] & 0xFF) << 16 | (b[at + 2] & 0xFF) << 8 | b[at + 3] & 0xFF;
    }
}
