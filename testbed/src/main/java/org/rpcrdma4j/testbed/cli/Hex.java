package org.rpcrdma4j.testbed.cli;

/** Parses the hex lines the decode commands read: pairs of hex digits, with spaces and colons ignored. */
final class Hex {

    private Hex() {
    }

    /**
     * Parses one line of hex.
     *
     * @param line hex digits, optionally separated by spaces, tabs or colons
     * @return the bytes the line spells
     * @throws IllegalArgumentException if the line holds a non-hex character or an odd number of digits
     */
    static byte[] parse(CharSequence line) {
        StringBuilder digits = new StringBuilder(line.length());
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == ' ' || c == '\t' || c == ':') {
                continue;
            }
            if (Character.digit(c, 16) < 0) {
                throw new IllegalArgumentException("not a hex digit at column " + (i + 1) + ": '" + c + "'");
            }
            digits.append(c);
        }
        if ((digits.length() & 1) != 0) {
            throw new IllegalArgumentException("odd number of hex digits: " + digits.length());
        }
        byte[] bytes = new byte[digits.length() / 2];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (Character.digit(digits.charAt(2 * i), 16) << 4 | Character.digit(digits.charAt(2 * i + 1), 16));
        }
        return bytes;
    }
}
