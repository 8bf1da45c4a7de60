package org.rpcrdma4j.testbed.trace;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The frames of a classic pcap (little-endian, Ethernet) of vectors/linux/pcap, to build captures a
 * replay must cope with from Linux's own frames: several connections, frames captured twice, answers
 * Linux's peer could have sent. Offsets are those of the rig's frames: Ethernet, IPv4 without options,
 * UDP, then the BTH at {@link #BTH}.
 */
final class PcapFrames {

    static final int IP = 14;
    static final int UDP = IP + 20;
    static final int BTH = UDP + 8;
    /** A Send's or a Write's payload, after the BTH (no RETH). */
    static final int PAYLOAD = BTH + 12;
    /** The MAD of a UD packet, after the BTH and the DETH. */
    static final int MAD = BTH + 12 + 8;
    static final int SEND_ONLY = 0x04;
    static final int SEND_ONLY_WITH_INVALIDATE = 0x17;
    static final int ACKNOWLEDGE = 0x11;
    static final int ATOMIC_ACKNOWLEDGE = 0x12;
    static final int RDMA_READ_RESPONSE_FIRST = 0x0D;
    static final int RDMA_READ_RESPONSE_ONLY = 0x10;
    private static final int ICRC = 4;

    private final byte[] header;
    final List<byte[]> frames;

    private PcapFrames(byte[] header, List<byte[]> frames) {
        this.header = header;
        this.frames = frames;
    }

    static PcapFrames load(String trace) throws IOException {
        byte[] pcap;
        try (InputStream in = PcapFrames.class.getResourceAsStream("/vectors/linux/pcap/" + trace + ".pcap")) {
            pcap = in.readAllBytes();
        }
        ByteBuffer b = ByteBuffer.wrap(pcap).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(b.getInt(0)).isEqualTo(0xa1b2c3d4);
        List<byte[]> frames = new ArrayList<>();
        for (int at = 24; at < pcap.length; at += 16 + b.getInt(at + 8)) {
            frames.add(Arrays.copyOfRange(pcap, at + 16, at + 16 + b.getInt(at + 8)));
        }
        return new PcapFrames(Arrays.copyOf(pcap, 24), frames);
    }

    /** @return the frames as a pcap, each with a zero timestamp */
    Capture capture() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(header);
        for (byte[] frame : frames) {
            out.writeBytes(ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putInt(0).putInt(0)
                    .putInt(frame.length).putInt(frame.length).array());
            out.writeBytes(frame);
        }
        return Capture.read(new ByteArrayInputStream(out.toByteArray()));
    }

    static boolean roce(byte[] frame) {
        return frame.length > BTH + 12 && frame[IP + 9] == 17 && u16(frame, UDP + 2) == 4791;
    }

    /** @return the BTH opcode of a RoCE frame (transport type in the top three bits) */
    static int opcode(byte[] frame) {
        return frame[BTH] & 0xFF;
    }

    /** @return the RDMA-CM attribute of a UD frame's MAD, or -1 */
    static int cmAttribute(byte[] frame) {
        return opcode(frame) >>> 5 == 3 && frame.length > MAD + 24 && frame[MAD + 1] == 7 ? u16(frame, MAD + 16) : -1;
    }

    /** Moves a connection to other queue pair numbers: its CM exchange and every packet to its endpoints. */
    static byte[] withQpn(byte[] frame, int qpn) {
        byte[] f = frame.clone();
        if (!roce(f)) {
            return f;
        }
        int attribute = cmAttribute(f);
        if (attribute == RocePacket.CM_REQ) {
            put24(f, MAD + 24 + 32, qpn);
        } else if (attribute == RocePacket.CM_REP) {
            put24(f, MAD + 24 + 12, qpn);
        } else if (opcode(f) >>> 5 == 0) {
            put24(f, BTH + 5, qpn);
        }
        return f;
    }

    /** @return whether a RoCE frame is a SEND_ONLY, with or without invalidate */
    static boolean sendOnly(byte[] frame) {
        return opcode(frame) == SEND_ONLY || opcode(frame) == SEND_ONLY_WITH_INVALIDATE;
    }

    /** @return where a SEND_ONLY's RPC-over-RDMA message starts: after the IETH of one with invalidate */
    static int payload(byte[] frame) {
        return PAYLOAD + (opcode(frame) == SEND_ONLY_WITH_INVALIDATE ? 4 : 0);
    }

    /** @return the XID of a Send's RPC-over-RDMA message (its first word) */
    static int xid(byte[] frame) {
        return ByteBuffer.wrap(frame).getInt(payload(frame));
    }

    /** @return a SEND_ONLY frame like this one that carries another payload */
    static byte[] withSendPayload(byte[] frame, byte[] payload) {
        assertThat(opcode(frame)).isEqualTo(SEND_ONLY);
        assertThat(payload.length % 4).isZero();
        byte[] f = Arrays.copyOf(frame, PAYLOAD + payload.length + ICRC);
        System.arraycopy(payload, 0, f, PAYLOAD, payload.length);
        ByteBuffer b = ByteBuffer.wrap(f);
        b.putShort(IP + 2, (short) (f.length - IP));
        b.putShort(UDP + 4, (short) (f.length - UDP));
        f[BTH + 1] &= (byte) 0xCF;                    // no pad
        return f;
    }

    private static int u16(byte[] b, int at) {
        return (b[at] & 0xFF) << 8 | b[at + 1] & 0xFF;
    }

    private static void put24(byte[] b, int at, int value) {
        b[at] = (byte) (value >>> 16);
        b[at + 1] = (byte) (value >>> 8);
        b[at + 2] = (byte) value;
    }
}
