package org.rpcrdma4j.testbed.trace;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.function.Consumer;

/**
 * Reads a classic pcap capture (the libpcap file format: a 24-byte global header, then a 16-byte
 * header and the bytes of each frame), in either byte order, with microsecond or nanosecond stamps.
 * Only Ethernet captures are accepted. Every length is checked against the snapshot length before a
 * frame is read.
 */
public final class PcapReader {

    private static final int MAGIC_MICROS = 0xa1b2c3d4;
    private static final int MAGIC_NANOS = 0xa1b23c4d;
    private static final int LINKTYPE_ETHERNET = 1;
    /** Caps the snapshot length a file may claim: no frame buffer is sized from an unchecked field. */
    private static final int MAX_SNAPLEN = 262144;

    private PcapReader() {
    }

    /**
     * One captured frame.
     *
     * @param number 1-based frame number, as Wireshark counts
     * @param bytes  the captured bytes
     */
    public record Frame(int number, byte[] bytes) {
    }

    /**
     * Reads every frame.
     *
     * @param in     the capture
     * @param frames gets each frame in capture order
     * @throws IOException if the file is not an Ethernet pcap or is cut short
     */
    public static void read(InputStream in, Consumer<Frame> frames) throws IOException {
        ByteBuffer global = ByteBuffer.wrap(readFully(in, 24, "the global header"));
        int magic = global.getInt(0);
        if (magic != MAGIC_MICROS && magic != MAGIC_NANOS) {
            global.order(ByteOrder.LITTLE_ENDIAN);
            magic = global.getInt(0);
            if (magic != MAGIC_MICROS && magic != MAGIC_NANOS) {
                throw new IOException("not a pcap file (magic 0x" + Integer.toHexString(global.getInt(0)) + ")");
            }
        }
        long snaplen = Integer.toUnsignedLong(global.getInt(16));
        int linktype = global.getInt(20);
        if (linktype != LINKTYPE_ETHERNET) {
            throw new IOException("link type " + linktype + " is not Ethernet");
        }
        long limit = Math.min(snaplen, MAX_SNAPLEN);
        for (int number = 1; ; number++) {
            byte[] header = in.readNBytes(16);
            if (header.length == 0) {
                return;
            }
            if (header.length < 16) {
                throw new IOException("frame " + number + " header cut short");
            }
            long captured = Integer.toUnsignedLong(ByteBuffer.wrap(header).order(global.order()).getInt(8));
            if (captured > limit) {
                throw new IOException("frame " + number + " claims " + captured + " bytes, more than the snapshot length "
                        + limit);
            }
            frames.accept(new Frame(number, readFully(in, (int) captured, "frame " + number)));
        }
    }

    private static byte[] readFully(InputStream in, int length, String what) throws IOException {
        byte[] bytes = in.readNBytes(length);
        if (bytes.length < length) {
            throw new IOException(what + " cut short: " + bytes.length + " of " + length + " bytes");
        }
        return bytes;
    }
}
