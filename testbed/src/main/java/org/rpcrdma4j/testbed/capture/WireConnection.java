package org.rpcrdma4j.testbed.capture;

import java.nio.ByteBuffer;
import java.util.OptionalInt;
import org.rpcrdma4j.xdr.Segment;

/**
 * One connection as its capture writes it: an RC connection between two queue pairs, each message and
 * RDMA operation cut into packets of the path MTU as an RC requester sends them (IBTA 9.2, 9.7): Sends as
 * SEND_ONLY or SEND_FIRST, _MIDDLE, _LAST (with Invalidate and its IETH when the Send invalidates), RDMA
 * Writes as RDMA_WRITE_ONLY or _FIRST (with the RETH), _MIDDLE, _LAST, an RDMA Read as its READ_REQUEST
 * (with the RETH) and the READ_RESPONSE packets that answer it (the first and last, or the only one, with
 * an AETH). Each queue pair numbers the requests it sends with PSNs that rise by one a packet, a Read
 * Request taking one for each of its responses, which carry them. Acknowledgements are not written: they
 * carry nothing a reader of RPC-over-RDMA needs.
 */
final class WireConnection {

    /** A syndrome of "ACK, no credit count" (IBTA 9.7.5.1.1), as every read response's AETH carries. */
    private static final int AETH_ACK = 0x1F;
    private static final int PSN_MASK = 0xFFFFFF;

    /** One queue pair: its address, number, and the sequence numbers it has used. */
    static final class End {
        private final int ip;
        private final int qpn;
        private int psn;
        private int msn;

        End(int ip, int qpn) {
            this.ip = ip;
            this.qpn = qpn;
            this.psn = qpn << 12 & PSN_MASK;
        }

        int ip() {
            return ip;
        }

        int qpn() {
            return qpn;
        }

        /** RoCEv2 leaves the UDP source port to the sender; one per queue pair, from the dynamic range. */
        int udpPort() {
            return 0xC000 | qpn & 0x3FFF;
        }

        /** @return the PSN of the next request this queue pair sends */
        int nextPsn() {
            return psn;
        }

        private int takePsns(int count) {
            int first = psn;
            psn = psn + count & PSN_MASK;
            return first;
        }
    }

    private final RoceCapture capture;
    private final End client;
    private final End server;

    WireConnection(RoceCapture capture, End client, End server) {
        this.capture = capture;
        this.client = client;
        this.server = server;
    }

    /**
     * @param fromClient whether the client sent it
     * @param message    the message, between position and limit
     * @param invalidate the receiver's R_Key a Send with Invalidate names
     */
    void send(boolean fromClient, ByteBuffer message, OptionalInt invalidate) {
        End from = fromClient ? client : server;
        End to = fromClient ? server : client;
        int packets = packets(message.remaining());
        synchronized (capture) {
            int psn = from.takePsns(packets);
            for (int i = 0; i < packets; i++) {
                boolean first = i == 0;
                boolean last = i == packets - 1;
                int opcode;
                byte[] extension = new byte[0];
                if (last && invalidate.isPresent()) {
                    opcode = first ? RoceFrame.RC_SEND_ONLY_WITH_INVALIDATE : RoceFrame.RC_SEND_LAST_WITH_INVALIDATE;
                    extension = ByteBuffer.allocate(RoceFrame.IETH_LENGTH).putInt(invalidate.getAsInt()).array();
                } else {
                    opcode = opcode(i, packets, RoceFrame.RC_SEND_ONLY, RoceFrame.RC_SEND_FIRST, RoceFrame.RC_SEND_MIDDLE,
                            RoceFrame.RC_SEND_LAST);
                }
                capture.packet(from, to.ip, opcode, to.qpn, psn + i & PSN_MASK, extension, piece(message, i));
            }
            to.msn++;
        }
    }

    /**
     * @param fromClient whether the client wrote
     * @param remote     where the bytes went (handle, length, offset)
     * @param data       the bytes, between position and limit
     */
    void write(boolean fromClient, Segment remote, ByteBuffer data) {
        End from = fromClient ? client : server;
        End to = fromClient ? server : client;
        int packets = packets(data.remaining());
        synchronized (capture) {
            int psn = from.takePsns(packets);
            for (int i = 0; i < packets; i++) {
                int opcode = opcode(i, packets, RoceFrame.RC_RDMA_WRITE_ONLY, RoceFrame.RC_RDMA_WRITE_FIRST,
                        RoceFrame.RC_RDMA_WRITE_MIDDLE, RoceFrame.RC_RDMA_WRITE_LAST);
                capture.packet(from, to.ip, opcode, to.qpn, psn + i & PSN_MASK,
                        i == 0 ? reth(remote, data.remaining()) : new byte[0], piece(data, i));
            }
            to.msn++;
        }
    }

    /**
     * @param fromClient whether the client read
     * @param remote     the bytes read (handle, length, offset)
     * @param data       what the read brought, between position and limit
     */
    void read(boolean fromClient, Segment remote, ByteBuffer data) {
        End from = fromClient ? client : server;
        End to = fromClient ? server : client;
        int packets = packets(data.remaining());
        synchronized (capture) {
            int psn = from.takePsns(packets);
            capture.packet(from, to.ip, RoceFrame.RC_RDMA_READ_REQUEST, to.qpn, psn, reth(remote, data.remaining()),
                    ByteBuffer.allocate(0));
            to.msn++;
            byte[] aeth = ByteBuffer.allocate(RoceFrame.AETH_LENGTH).putInt(AETH_ACK << 24 | to.msn & PSN_MASK)
                    .array();
            for (int i = 0; i < packets; i++) {
                int opcode = opcode(i, packets, RoceFrame.RC_RDMA_READ_RESPONSE_ONLY,
                        RoceFrame.RC_RDMA_READ_RESPONSE_FIRST, RoceFrame.RC_RDMA_READ_RESPONSE_MIDDLE,
                        RoceFrame.RC_RDMA_READ_RESPONSE_LAST);
                capture.packet(to, from.ip, opcode, from.qpn, psn + i & PSN_MASK,
                        i == 0 || i == packets - 1 ? aeth : new byte[0], piece(data, i));
            }
        }
    }

    /** @return the opcode of packet {@code i} of a message cut into {@code packets}: ONLY, or FIRST, MIDDLE, LAST */
    private static int opcode(int i, int packets, int only, int first, int middle, int last) {
        return packets == 1 ? only : i == 0 ? first : i == packets - 1 ? last : middle;
    }

    /** @return the packets a message of this length takes; an empty one takes one */
    private static int packets(int length) {
        return Math.max(1, (length + RoceCapture.PATH_MTU - 1) / RoceCapture.PATH_MTU);
    }

    /** @return the bytes of the i-th packet */
    private static ByteBuffer piece(ByteBuffer bytes, int i) {
        int from = bytes.position() + i * RoceCapture.PATH_MTU;
        return bytes.duplicate().position(from).limit(Math.min(bytes.limit(), from + RoceCapture.PATH_MTU));
    }

    /** The RETH: the remote virtual address (the segment's offset), its R_Key (handle) and the length. */
    private static byte[] reth(Segment remote, int length) {
        return ByteBuffer.allocate(RoceFrame.RETH_LENGTH).putLong(remote.offset()).putInt(remote.handle())
                .putInt(length).array();
    }
}
