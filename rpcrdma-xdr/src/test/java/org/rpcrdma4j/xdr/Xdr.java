package org.rpcrdma4j.xdr;

import java.io.ByteArrayOutputStream;

/** Test helper: writes XDR words by hand, independently of {@link HeaderEncoder}. */
final class Xdr {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    static Xdr words(long... words) {
        Xdr xdr = new Xdr();
        for (long word : words) {
            xdr.word(word);
        }
        return xdr;
    }

    /** Appends one 32-bit word (the low 32 bits of {@code value}). */
    Xdr word(long value) {
        out.write((int) (value >>> 24));
        out.write((int) (value >>> 16));
        out.write((int) (value >>> 8));
        out.write((int) value);
        return this;
    }

    /** Appends a 64-bit hyper. */
    Xdr hyper(long value) {
        return word(value >>> 32).word(value);
    }

    /** Appends a segment: handle, length, offset. */
    Xdr segment(long handle, long length, long offset) {
        return word(handle).word(length).hyper(offset);
    }

    /** Appends raw bytes. */
    Xdr bytes(byte[] bytes) {
        out.write(bytes, 0, bytes.length);
        return this;
    }

    /** Appends {@code n} zero bytes. */
    Xdr zeros(int n) {
        return bytes(new byte[n]);
    }

    byte[] toBytes() {
        return out.toByteArray();
    }

    static byte[] hex(String hex) {
        byte[] bytes = new byte[hex.length() / 2];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        }
        return bytes;
    }
}
