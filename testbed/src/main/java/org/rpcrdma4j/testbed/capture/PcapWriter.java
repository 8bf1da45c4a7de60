package org.rpcrdma4j.testbed.capture;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Writes a classic pcap file (the libpcap format, as tcpdump writes it): a 24-byte global header, then a
 * 16-byte record header and the bytes of each frame, little endian, with nanosecond time stamps and
 * Ethernet frames. Not thread-safe; buffers nothing itself.
 */
final class PcapWriter {

    /** The magic of a file with nanosecond time stamps. */
    static final int MAGIC_NANOS = 0xa1b23c4d;
    static final int GLOBAL_HEADER_LENGTH = 24;
    static final int RECORD_HEADER_LENGTH = 16;
    static final int LINKTYPE_ETHERNET = 1;
    /** The snapshot length: every frame is written whole, and none is longer (a RoCE frame of 4 KiB MTU). */
    static final int SNAPLEN = 262144;

    private final OutputStream out;
    private final ByteBuffer record = ByteBuffer.allocate(RECORD_HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);

    /**
     * Writes the global header.
     *
     * @param out where the file goes
     * @throws IOException if it cannot be written
     */
    PcapWriter(OutputStream out) throws IOException {
        this.out = out;
        out.write(ByteBuffer.allocate(GLOBAL_HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN).putInt(MAGIC_NANOS)
                .putShort((short) 2).putShort((short) 4).putInt(0).putInt(0).putInt(SNAPLEN)
                .putInt(LINKTYPE_ETHERNET).array());
    }

    /**
     * @param epochNanos when the frame was seen, in nanoseconds since the epoch
     * @param frame      the Ethernet frame, at most {@link #SNAPLEN} bytes
     * @throws IOException if it cannot be written
     */
    void write(long epochNanos, byte[] frame) throws IOException {
        record.clear();
        record.putInt((int) (epochNanos / 1_000_000_000L)).putInt((int) (epochNanos % 1_000_000_000L))
                .putInt(frame.length).putInt(frame.length);
        out.write(record.array());
        out.write(frame);
    }
}
