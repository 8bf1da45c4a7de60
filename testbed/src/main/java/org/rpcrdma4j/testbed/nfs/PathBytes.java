package org.rpcrdma4j.testbed.nfs;

import java.net.URI;
import java.nio.charset.Charset;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The bytes of local paths, exactly as the kernel holds them, on Java 17 without native code.
 *
 * <p>Linux file names and symbolic link targets are bytes, and NFS carries them as bytes. java.nio turns a
 * {@code String} into a path by encoding it with {@code sun.jnu.encoding} and collapsing repeated and trailing
 * slashes, and turns a path into a {@code String} by decoding it, so bytes that are not valid in that encoding
 * (often UTF-8) are replaced. Its {@code file:} URIs are the only public byte-exact route on Java 17: {@link
 * Path#toUri()} percent-encodes each byte of the path that is not a plain URI character, and {@link Path#of(URI)}
 * turns each {@code %XX} back into that byte. What the route cannot carry: NUL, and (as {@link Path#of(URI)}
 * collapses them) repeated slashes and a trailing slash; {@link #pathOf} answers null for those.
 */
final class PathBytes {

    private static final byte SLASH = '/';
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();
    /** The charset java.nio encodes and decodes path Strings with. */
    private static final Charset JNU = Charset.forName(System.getProperty("sun.jnu.encoding"));

    private PathBytes() {
    }

    /** {@code dir}'s entry named {@code name} (bytes without '/' or NUL, neither "." nor ".."). */
    static Path child(Path dir, byte[] name) {
        return dir.resolve(pathOf(name));
    }

    /** The bytes of {@code path}'s last element. */
    static byte[] nameOf(Path path) {
        Path name = path.getFileName();
        // most names decode and encode back to the same bytes: then the String holds them, and no URI is needed
        String text = name.toString();
        try {
            if (name.getFileSystem().getPath(text).equals(name)) {
                return text.getBytes(JNU);
            }
        } catch (InvalidPathException e) {
            // the decoded text does not encode back (a replacement character in a narrow charset)
        }
        return bytesOf(name);
    }

    /** The bytes of a path, relative or absolute. */
    static byte[] bytesOf(Path path) {
        // toUri makes a path absolute and appends '/' when it names a directory: resolve a relative path against
        // "/" and append a known element, so both additions can be taken off again exactly.
        boolean absolute = path.isAbsolute();
        if (absolute && path.getNameCount() == 0) {
            return new byte[] {SLASH};
        }
        Path probe = path.getFileSystem().getPath("/").resolve(path).resolve("x");
        String raw = probe.toUri().getRawPath();
        int end = raw.length() - (raw.endsWith("x/") ? 2 : 1) - 1; // the '/' before the appended "x"
        byte[] out = new byte[end];
        int n = 0;
        for (int i = absolute ? 0 : 1; i < end; i++) {
            char c = raw.charAt(i);
            if (c == '%') {
                out[n++] = (byte) Integer.parseInt(raw, i + 1, i + 3, 16);
                i += 2;
            } else {
                out[n++] = (byte) c;
            }
        }
        return Arrays.copyOf(out, n);
    }

    /**
     * The path with exactly these bytes, or null when java.nio cannot make one: empty, containing NUL or a
     * repeated '/', or ending in '/' (other than "/" itself).
     */
    static Path pathOf(byte[] bytes) {
        int n = bytes.length;
        if (n == 0 || (n > 1 && bytes[n - 1] == SLASH)) {
            return null;
        }
        StringBuilder uri = new StringBuilder(8 + 3 * n).append("file://");
        boolean absolute = bytes[0] == SLASH;
        if (!absolute) {
            uri.append('/');
        }
        for (int i = 0; i < n; i++) {
            int b = bytes[i] & 0xFF;
            if (b == 0 || (b == SLASH && i > 0 && bytes[i - 1] == SLASH)) {
                return null;
            }
            if (b == SLASH || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9')
                    || b == '-' || b == '.' || b == '_' || b == '~') {
                uri.append((char) b);
            } else {
                uri.append('%').append(HEX[b >>> 4]).append(HEX[b & 0xF]);
            }
        }
        Path p = Path.of(URI.create(uri.toString()));
        return absolute ? p : p.subpath(0, p.getNameCount());
    }

    /** The nearest form java.nio can make of a non-empty path without NUL: repeated and trailing '/' dropped. */
    static byte[] nearest(byte[] bytes) {
        byte[] out = new byte[bytes.length];
        int n = 0;
        for (byte b : bytes) {
            if (b != SLASH || n == 0 || out[n - 1] != SLASH) {
                out[n++] = b;
            }
        }
        if (n > 1 && out[n - 1] == SLASH) {
            n--;
        }
        return Arrays.copyOf(out, n);
    }
}
