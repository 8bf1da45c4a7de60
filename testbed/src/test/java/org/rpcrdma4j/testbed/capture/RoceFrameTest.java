package org.rpcrdma4j.testbed.capture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.testbed.trace.PcapReader;

/**
 * A frame's bytes against the RoCEv2 layout worked out by hand, and the invariant CRC against the ones
 * Linux's Soft-RoCE put on the frames of a real capture.
 */
class RoceFrameTest {

    @Test
    void aSendOnlyFrameIsLaidOutAsIbtaAnnexA17Says() {
        byte[] frame = RoceFrame.encode(0x0a630002, 0x0a630001, 0xC011, 0x1234, RoceFrame.RC_SEND_ONLY, 0x11,
                0x011000, new byte[0], ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5, 6}));

        // Ethernet 02:00 + each IPv4 address, type 0x0800 | IPv4: IHL 5, length 52, id 0x1234, DF, TTL 64,
        // UDP, checksum 0x13bd, 10.99.0.2 -> 10.99.0.1 | UDP 0xc011 -> 4791, length 32, no checksum | BTH:
        // SEND_ONLY, pad 2, P_Key 0xffff, QP 0x11, AckReq, PSN 0x011000 | 6 bytes, 2 of pad | ICRC (LE)
        assertThat(HexFormat.of().formatHex(frame)).isEqualTo("02000a630001" + "02000a630002" + "0800"
                + "45000034" + "12344000" + "401113bd" + "0a630002" + "0a630001"
                + "c01112b7" + "00200000"
                + "0420ffff" + "00000011" + "80011000"
                + "010203040506" + "0000"
                + "c77cf75e");
    }

    @Test
    void theInvariantCrcIsTheOneLinuxSoftRocePutsOnItsFrames() throws Exception {
        List<PcapReader.Frame> roce = new ArrayList<>();
        try (InputStream in = getClass().getResourceAsStream("/vectors/linux/pcap/v3-small.pcap")) {
            PcapReader.read(in, frame -> {
                byte[] b = frame.bytes();
                if (b.length > RoceFrame.BTH_OFFSET && (ByteBuffer.wrap(b).getShort(RoceFrame.UDP_OFFSET + 2)
                        & 0xFFFF) == RoceFrame.ROCE_V2_PORT) {
                    roce.add(frame);
                }
            });
        }

        // CM MADs on UD, Sends, acknowledgements, RDMA Writes and Read responses of one NFS/RDMA session
        assertThat(roce).hasSizeGreaterThan(100);
        for (PcapReader.Frame frame : roce) {
            byte[] b = frame.bytes();
            // the UDP length, not the frame's, says where the packet ends: Ethernet may pad a short frame
            int end = RoceFrame.UDP_OFFSET + (ByteBuffer.wrap(b).getShort(RoceFrame.UDP_OFFSET + 4) & 0xFFFF)
                    - RoceFrame.ICRC_LENGTH;
            long carried = Integer.toUnsignedLong(ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getInt(end));
            assertThat(RoceFrame.icrc(b, end)).as("frame %d", frame.number()).isEqualTo(carried);
        }
    }
}
