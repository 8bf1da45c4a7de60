package org.rpcrdma4j.efa.device;

import java.util.Objects;

/**
 * The 16-byte global identifier of an EFA device, in IPv6 format (EFA RDM protocol v4 §1.4,
 * table 1.5). Held as two big-endian halves so that it is an immutable value with a cheap
 * {@code equals}.
 *
 * @param high bytes 0 to 7, big endian
 * @param low bytes 8 to 15, big endian
 */
public record Gid(long high, long low) {

    /** Length of a GID in bytes. */
    public static final int LENGTH = 16;

    /**
     * Makes a GID from its 16 bytes.
     *
     * @param bytes the GID in network order
     * @return the GID
     * @throws IllegalArgumentException if {@code bytes} is not 16 bytes long
     */
    public static Gid of(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        if (bytes.length != LENGTH) {
            throw new IllegalArgumentException("a GID has " + LENGTH + " bytes, not " + bytes.length);
        }
        return new Gid(readLong(bytes, 0), readLong(bytes, 8));
    }

    // Written out: GIDs key the maps looked up for every packet, and the generated record methods
    // cost several times more there.
    @Override
    public boolean equals(Object other) {
        return other instanceof Gid gid && gid.high == high && gid.low == low;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(high * 31 + low);
    }

    /** @return the 16 bytes of this GID in network order */
    public byte[] toBytes() {
        final byte[] bytes = new byte[LENGTH];
        for (int i = 0; i < 8; i++) {
            bytes[i] = (byte) (high >>> (56 - 8 * i));
            bytes[8 + i] = (byte) (low >>> (56 - 8 * i));
        }
        return bytes;
    }

    /** @return the GID as eight colon-separated groups of hex digits, like an IPv6 address */
    @Override
    public String toString() {
        final StringBuilder text = new StringBuilder(39);
        for (int group = 0; group < 8; group++) {
            final long half = group < 4 ? high : low;
            final int shift = 48 - 16 * (group % 4);
            if (group > 0) {
                text.append(':');
            }
            text.append(Integer.toHexString((int) (half >>> shift) & 0xFFFF));
        }
        return text.toString();
    }

    private static long readLong(byte[] bytes, int at) {
        long value = 0;
        for (int i = 0; i < 8; i++) {
            value = (value << 8) | (bytes[at + i] & 0xFF);
        }
        return value;
    }
}
