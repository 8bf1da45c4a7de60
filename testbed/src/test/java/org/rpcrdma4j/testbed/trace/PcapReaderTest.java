package org.rpcrdma4j.testbed.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Reads the captures editcap wrote (vectors/linux/pcap/README.md): a pcapng copy of a Linux capture holds the
 * same frames as the pcap, and a copy cut short yields the frames tshark reads from it before the cut is reported.
 */
class PcapReaderTest {

    @Test
    void aPcapngFromEditcapHoldsThePcapsFrames() throws IOException {
        List<PcapReader.Frame> pcap = frames(bytes("v42-posz.pcap"));
        List<PcapReader.Frame> pcapng = frames(bytes("v42-posz.pcapng"));

        assertThat(pcapng).hasSize(196).hasSameSizeAs(pcap);
        for (int i = 0; i < pcap.size(); i++) {
            assertThat(pcapng.get(i).number()).isEqualTo(pcap.get(i).number()).isEqualTo(i + 1);
            assertThat(pcapng.get(i).bytes()).isEqualTo(pcap.get(i).bytes());
            assertThat(pcapng.get(i).time()).isEqualTo(pcap.get(i).time());
        }
        // tshark -T fields -e frame.time_epoch: 1795347071.912705000
        assertThat(pcap.get(0).time()).isEqualTo(Instant.ofEpochSecond(1795347071, 912705000));
    }

    @Test
    void framesOfLaterSectionsAreNumberedOn() throws IOException {
        byte[] one = bytes("v42-posz.pcapng");
        byte[] two = Arrays.copyOf(one, 2 * one.length);
        System.arraycopy(one, 0, two, one.length, one.length);

        List<PcapReader.Frame> frames = frames(two);

        assertThat(frames).hasSize(2 * 196);
        assertThat(frames.get(196).number()).isEqualTo(197);
        assertThat(frames.get(196).bytes()).isEqualTo(frames.get(0).bytes());
    }

    @Test
    void aCutPcapngGivesTheFramesBeforeTheCutThenNamesTheFrame() throws IOException {
        List<PcapReader.Frame> frames = new ArrayList<>();

        assertThatThrownBy(() -> PcapReader.read(new ByteArrayInputStream(bytes("v42-posz.cut.pcapng")), frames::add))
                .isInstanceOfSatisfying(TruncatedCaptureException.class, e -> assertThat(e.frame()).isEqualTo(133))
                .hasMessageStartingWith("frame 133 cut short");
        assertThat(frames).hasSize(132);
        assertThat(frames.get(131).bytes()).isEqualTo(frames(bytes("v42-posz.pcap")).get(131).bytes());
    }

    @Test
    void aCutPcapGivesTheFramesBeforeTheCutThenNamesTheFrame() throws IOException {
        List<PcapReader.Frame> frames = new ArrayList<>();

        assertThatThrownBy(() -> PcapReader.read(new ByteArrayInputStream(bytes("v3-small.cut.pcap")), frames::add))
                .isInstanceOfSatisfying(TruncatedCaptureException.class, e -> assertThat(e.frame()).isEqualTo(246))
                .hasMessageStartingWith("frame 246 cut short");
        assertThat(frames).hasSize(245);
    }

    @Test
    void aPcapngWhoseByteOrderMagicIsWrongIsNotACapture() throws IOException {
        byte[] bad = bytes("v42-posz.pcapng");
        bad[8] ^= 0x55;

        assertThatThrownBy(() -> frames(bad)).isNotInstanceOf(TruncatedCaptureException.class)
                .hasMessageContaining("not a pcapng file");
    }

    @Test
    void aPacketBlockLongerThanAnyFrameIsRefusedBeforeItIsRead() throws IOException {
        byte[] pcapng = bytes("v42-posz.pcapng");
        int firstPacket = firstEnhancedPacketBlock(pcapng);
        pcapng[firstPacket + 4] = 0;
        pcapng[firstPacket + 5] = 0;
        pcapng[firstPacket + 6] = 0;
        pcapng[firstPacket + 7] = 0x7f;           // total length 2 GiB, little-endian

        assertThatThrownBy(() -> frames(pcapng)).hasMessageContaining("frame 1 block claims");
    }

    private static int firstEnhancedPacketBlock(byte[] pcapng) {
        int at = 0;
        while (pcapng[at] != 6 || pcapng[at + 1] != 0 || pcapng[at + 2] != 0 || pcapng[at + 3] != 0) {
            at += (pcapng[at + 4] & 0xff) | (pcapng[at + 5] & 0xff) << 8 | (pcapng[at + 6] & 0xff) << 16
                    | (pcapng[at + 7] & 0xff) << 24;
        }
        return at;
    }

    private static List<PcapReader.Frame> frames(byte[] capture) throws IOException {
        List<PcapReader.Frame> frames = new ArrayList<>();
        PcapReader.read(new ByteArrayInputStream(capture), frames::add);
        return frames;
    }

    private static byte[] bytes(String name) throws IOException {
        try (InputStream in = PcapReaderTest.class.getResourceAsStream("/vectors/linux/pcap/" + name)) {
            return in.readAllBytes();
        }
    }
}
