package org.rpcrdma4j.testbed.trace;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Reads a packet capture in either of the formats Wireshark, tshark, dumpcap and tcpdump write:
 *
 * <ul>
 *   <li>classic pcap (the libpcap format: a 24-byte global header, then a 16-byte header and the
 *       bytes of each frame), in either byte order, with microsecond or nanosecond stamps;
 *   <li>pcapng (draft-ietf-opsawg-pcapng, Wireshark's default): sections of blocks in either byte
 *       order; frames come from Enhanced, Simple and (obsolete) Packet Blocks, each on the interface
 *       its Interface Description Block declares; every other block is skipped.
 * </ul>
 *
 * Frames must be Ethernet, or Linux cooked (SLL or SLL2, what {@code tcpdump -i any} writes); another link
 * type is refused with its number. Every length is checked against a cap before anything is read into
 * memory, and frames are numbered from 1 as Wireshark numbers them. A file that ends inside a
 * frame or block delivers every frame before the cut and then throws {@link TruncatedCaptureException}.
 */
public final class PcapReader {

    private static final int MAGIC_MICROS = 0xa1b2c3d4;
    private static final int MAGIC_NANOS = 0xa1b23c4d;
    private static final int PCAPNG_SECTION_HEADER = 0x0a0d0d0a;
    private static final int PCAPNG_BYTE_ORDER_MAGIC = 0x1a2b3c4d;
    private static final int PCAPNG_INTERFACE_DESCRIPTION = 1;
    private static final int PCAPNG_PACKET = 2;
    private static final int PCAPNG_SIMPLE_PACKET = 3;
    private static final int PCAPNG_ENHANCED_PACKET = 6;
    private static final int PCAPNG_IF_TSRESOL = 9;
    /** A pcapng interface's default resolution: microseconds. */
    private static final int DEFAULT_TSRESOL = 6;
    static final int LINKTYPE_ETHERNET = 1;
    static final int LINKTYPE_LINUX_SLL = 113;
    static final int LINKTYPE_LINUX_SLL2 = 276;
    /** Caps the snapshot length a file may claim: no frame buffer is sized from an unchecked field. */
    private static final int MAX_SNAPLEN = 262144;
    /** A packet block's fixed fields (Enhanced Packet Block's, the largest) and its length fields. */
    private static final int MAX_PACKET_BLOCK = MAX_SNAPLEN + 32 + (1 << 16);

    private PcapReader() {
    }

    /**
     * One captured frame.
     *
     * @param number   1-based frame number, as Wireshark counts
     * @param time     when it was captured; {@code null} for a pcapng Simple Packet Block, which has no time
     * @param linkType its link-layer header: Ethernet (1), Linux cooked SLL (113) or SLL2 (276)
     * @param bytes    the captured bytes
     */
    public record Frame(int number, Instant time, int linkType, byte[] bytes) {
    }

    /**
     * Reads every frame.
     *
     * @param in     the capture, classic pcap or pcapng
     * @param frames gets each frame in capture order
     * @throws TruncatedCaptureException if the file ends inside a frame or block, after every frame
     *                                   before the cut went to {@code frames}
     * @throws IOException               if the file is neither format, or holds a link type other than Ethernet,
     *                                   SLL and SLL2
     */
    public static void read(InputStream in, Consumer<Frame> frames) throws IOException {
        byte[] start = readFully(in, 4, "the file header", 0);
        int magic = ByteBuffer.wrap(start).getInt();
        if (magic == PCAPNG_SECTION_HEADER) {
            new Pcapng(in, frames).read();
        } else {
            readClassic(in, start, frames);
        }
    }

    private static void readClassic(InputStream in, byte[] start, Consumer<Frame> frames) throws IOException {
        ByteBuffer global = ByteBuffer.allocate(24).put(start).put(readFully(in, 20, "the global header", 0)).flip();
        int magic = global.getInt(0);
        if (magic != MAGIC_MICROS && magic != MAGIC_NANOS) {
            global.order(ByteOrder.LITTLE_ENDIAN);
            magic = global.getInt(0);
            if (magic != MAGIC_MICROS && magic != MAGIC_NANOS) {
                throw new IOException("not a pcap or pcapng file (magic 0x" + Integer.toHexString(global.getInt(0))
                        + ")");
            }
        }
        long snaplen = Integer.toUnsignedLong(global.getInt(16));
        int linkType = requireKnownLinkType(global.getInt(20));
        int nanosPerTick = magic == MAGIC_NANOS ? 1 : 1000;
        long limit = Math.min(snaplen, MAX_SNAPLEN);
        for (int number = 1; ; number++) {
            byte[] header = in.readNBytes(16);
            if (header.length == 0) {
                return;
            }
            if (header.length < 16) {
                throw new TruncatedCaptureException(number, "frame " + number + " header cut short: " + header.length
                        + " of 16 bytes");
            }
            ByteBuffer h = ByteBuffer.wrap(header).order(global.order());
            long captured = Integer.toUnsignedLong(h.getInt(8));
            if (captured > limit) {
                throw new IOException("frame " + number + " claims " + captured + " bytes, more than the snapshot length "
                        + limit);
            }
            Instant time = Instant.ofEpochSecond(Integer.toUnsignedLong(h.getInt(0)),
                    Integer.toUnsignedLong(h.getInt(4)) * nanosPerTick);
            frames.accept(new Frame(number, time, linkType, readFully(in, (int) captured, "frame " + number, number)));
        }
    }

    private static int requireKnownLinkType(int linkType) throws IOException {
        if (linkType != LINKTYPE_ETHERNET && linkType != LINKTYPE_LINUX_SLL && linkType != LINKTYPE_LINUX_SLL2) {
            throw new IOException("link type " + linkType + " is none of those this reads: Ethernet (1), Linux cooked "
                    + "SLL (113) and SLL2 (276)");
        }
        return linkType;
    }

    /**
     * @param frame the frame being read, or 0 before the first
     */
    private static byte[] readFully(InputStream in, int length, String what, int frame) throws IOException {
        byte[] bytes = in.readNBytes(length);
        if (bytes.length < length) {
            String message = what + " cut short: " + bytes.length + " of " + length + " bytes";
            throw frame > 0 ? new TruncatedCaptureException(frame, message) : new IOException(message);
        }
        return bytes;
    }

    /**
     * A pcapng interface, from its Interface Description Block.
     *
     * @param linkType its link type
     * @param snaplen  its snapshot length, 0 for none
     * @param tsresol  its if_tsresol: a tick is 10^-n seconds, or 2^-n with the top bit set
     */
    private record Interface(int linkType, int snaplen, int tsresol) {

        Instant time(long ticks) {
            if ((tsresol & 0x80) != 0) {
                int bits = tsresol & 0x7f;
                long fraction = bits == 0 ? 0 : ticks & (-1L >>> (64 - bits));
                return Instant.ofEpochSecond(bits == 0 ? ticks : ticks >>> bits,
                        (long) (Math.scalb((double) fraction, -bits) * 1e9));
            }
            long perSecond = pow10(tsresol);
            long fraction = Long.remainderUnsigned(ticks, perSecond);
            long nanos = tsresol <= 9 ? fraction * pow10(9 - tsresol) : fraction / pow10(tsresol - 9);
            return Instant.ofEpochSecond(Long.divideUnsigned(ticks, perSecond), nanos);
        }

        private static long pow10(int n) {
            long p = 1;
            for (int i = 0; i < n; i++) {
                p *= 10;
            }
            return p;
        }
    }

    /** One pcapng file: its sections, their interfaces, and the packets on them. */
    private static final class Pcapng {

        private final InputStream in;
        private final Consumer<Frame> frames;
        /** The current section's interfaces, by interface id. */
        private final List<Interface> interfaces = new ArrayList<>();
        private ByteOrder order = ByteOrder.BIG_ENDIAN;
        private int number;

        Pcapng(InputStream in, Consumer<Frame> frames) {
            this.in = in;
            this.frames = frames;
        }

        void read() throws IOException {
            section();
            while (true) {
                byte[] head = in.readNBytes(8);
                if (head.length == 0) {
                    return;
                }
                if (head.length < 8) {
                    throw cut("a block header cut short: " + head.length + " of 8 bytes");
                }
                ByteBuffer h = ByteBuffer.wrap(head).order(order);
                int type = h.getInt(0);
                if (type == PCAPNG_SECTION_HEADER) {
                    section(head);
                    continue;
                }
                long length = Integer.toUnsignedLong(h.getInt(4));
                if (length < 12 || length % 4 != 0) {
                    throw new IOException("block of type " + type + " after frame " + number + " has length " + length);
                }
                int bodyLength = (int) Math.min(length - 12, Integer.MAX_VALUE);
                if (type == PCAPNG_ENHANCED_PACKET || type == PCAPNG_SIMPLE_PACKET || type == PCAPNG_PACKET) {
                    if (length > MAX_PACKET_BLOCK) {
                        throw new IOException("frame " + (number + 1) + " block claims " + length
                                + " bytes, more than " + MAX_PACKET_BLOCK);
                    }
                    byte[] block = in.readNBytes(bodyLength + 4);
                    if (block.length < bodyLength + 4) {
                        throw new TruncatedCaptureException(number + 1, "frame " + (number + 1) + " cut short: "
                                + (block.length + 8) + " of " + length + " bytes of its block");
                    }
                    ByteBuffer body = ByteBuffer.wrap(block).order(order);
                    number++;
                    frames.accept(packet(type, body, bodyLength));
                } else if (type == PCAPNG_INTERFACE_DESCRIPTION) {
                    if (length > 1 << 16) {
                        throw new IOException("interface description after frame " + number + " claims " + length
                                + " bytes");
                    }
                    ByteBuffer body = ByteBuffer.wrap(readBody(bodyLength + 4)).order(order);
                    if (bodyLength < 8) {
                        throw new IOException("interface description after frame " + number + " is too short");
                    }
                    interfaces.add(new Interface(body.getShort(0) & 0xffff, body.getInt(4),
                            tsresol(body, bodyLength)));
                } else {
                    skip(length - 8);
                }
            }
        }

        /** A section header's first four bytes are read already: reads the rest and starts a section. */
        private void section() throws IOException {
            byte[] rest = in.readNBytes(4);
            if (rest.length < 4) {
                throw new IOException("section header cut short");
            }
            section(ByteBuffer.allocate(8).putInt(PCAPNG_SECTION_HEADER).put(rest).array());
        }

        private void section(byte[] head) throws IOException {
            byte[] magic = in.readNBytes(4);
            if (magic.length < 4) {
                throw cut("a section header cut short");
            }
            int big = ByteBuffer.wrap(magic).getInt();
            if (big == PCAPNG_BYTE_ORDER_MAGIC) {
                order = ByteOrder.BIG_ENDIAN;
            } else if (Integer.reverseBytes(big) == PCAPNG_BYTE_ORDER_MAGIC) {
                order = ByteOrder.LITTLE_ENDIAN;
            } else {
                throw new IOException("not a pcapng file (byte-order magic 0x" + Integer.toHexString(big) + ")");
            }
            long length = Integer.toUnsignedLong(ByteBuffer.wrap(head).order(order).getInt(4));
            if (length < 28 || length % 4 != 0) {
                throw new IOException("section header has length " + length);
            }
            interfaces.clear();
            skip(length - 12);
        }

        /** @return the interface's if_tsresol option, or the default if it has none */
        private int tsresol(ByteBuffer body, int bodyLength) throws IOException {
            for (int at = 8; at + 4 <= bodyLength; ) {
                int code = body.getShort(at) & 0xffff;
                int length = body.getShort(at + 2) & 0xffff;
                if (code == 0 || at + 4 + length > bodyLength) {
                    break;
                }
                if (code == PCAPNG_IF_TSRESOL && length >= 1) {
                    int tsresol = body.get(at + 4) & 0xff;
                    // 10^-19 s and finer do not fit a u64 count of seconds' fractions; 2^-64 would not either.
                    if ((tsresol & 0x80) == 0 ? tsresol > 18 : (tsresol & 0x7f) > 63) {
                        throw new IOException("interface " + interfaces.size() + " has a time resolution (if_tsresol "
                                + tsresol + ") finer than this reads");
                    }
                    return tsresol;
                }
                at += 4 + (length + 3 & ~3);
            }
            return DEFAULT_TSRESOL;
        }

        private Frame packet(int type, ByteBuffer body, int bodyLength) throws IOException {
            int iface;
            int offset;
            long captured;
            if (type == PCAPNG_SIMPLE_PACKET) {
                iface = 0;
                offset = 4;
                long original = Integer.toUnsignedLong(body.getInt(0));
                captured = Math.min(original, bodyLength - 4L);
                int snaplen = iface < interfaces.size() ? interfaces.get(iface).snaplen() : 0;
                if (snaplen > 0) {
                    captured = Math.min(captured, snaplen);
                }
            } else {
                iface = type == PCAPNG_PACKET ? body.getShort(0) & 0xffff : body.getInt(0);
                offset = 20;
                captured = bodyLength < offset ? -1 : Integer.toUnsignedLong(body.getInt(12));
            }
            if (captured < 0 || captured > bodyLength - offset) {
                throw new IOException("frame " + number + " claims more bytes than its block holds");
            }
            if (iface < 0 || iface >= interfaces.size()) {
                throw new IOException("frame " + number + " is on interface " + Integer.toUnsignedString(iface)
                        + ", which the section does not describe");
            }
            Interface on = interfaces.get(iface);
            requireKnownLinkType(on.linkType());
            byte[] bytes = new byte[(int) captured];
            body.get(offset, bytes);
            // Enhanced and Packet Blocks put the time at the same place: high then low 32 bits.
            Instant time = type == PCAPNG_SIMPLE_PACKET ? null
                    : on.time(Integer.toUnsignedLong(body.getInt(4)) << 32 | Integer.toUnsignedLong(body.getInt(8)));
            return new Frame(number, time, on.linkType(), bytes);
        }

        /** Reads a block's body and its trailing length. */
        private byte[] readBody(int length) throws IOException {
            byte[] body = in.readNBytes(length);
            if (body.length < length) {
                throw cut("a block cut short: " + body.length + " of " + length + " bytes");
            }
            return body;
        }

        private void skip(long length) throws IOException {
            try {
                in.skipNBytes(length);
            } catch (EOFException e) {
                throw cut("a block cut short");
            }
        }

        /** The file ends in a block that is not a packet's, after frame {@link #number}. */
        private TruncatedCaptureException cut(String what) {
            return new TruncatedCaptureException(number + 1, what + " after frame " + number);
        }
    }
}
