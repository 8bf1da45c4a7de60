package org.rpcrdma4j.testbed.cli;

/**
 * A minimal streaming JSON writer for the one-object-per-line output of the decode commands.
 *
 * <p>Callers nest {@code beginObject}/{@code beginArray} and name each member with {@link #name};
 * commas are inserted automatically. Integers are written as given, so unsigned wire values must be
 * widened (or rendered with {@link Long#toUnsignedString(long)}) by the caller.
 */
final class Json {

    private final StringBuilder out = new StringBuilder(256);
    /** True when the next value or name in the current container needs a leading comma. */
    private boolean needComma;

    Json beginObject() {
        separate();
        out.append('{');
        needComma = false;
        return this;
    }

    Json endObject() {
        out.append('}');
        needComma = true;
        return this;
    }

    Json beginArray() {
        separate();
        out.append('[');
        needComma = false;
        return this;
    }

    Json endArray() {
        out.append(']');
        needComma = true;
        return this;
    }

    Json name(String name) {
        separate();
        string(name);
        out.append(':');
        needComma = false;
        return this;
    }

    Json value(long value) {
        separate();
        out.append(value);
        needComma = true;
        return this;
    }

    Json value(double value) {
        separate();
        out.append(Double.isFinite(value) ? String.format(java.util.Locale.ROOT, "%.3f", value) : "null");
        needComma = true;
        return this;
    }

    Json value(boolean value) {
        separate();
        out.append(value);
        needComma = true;
        return this;
    }

    /** Writes a u64 held in a {@code long} as an unsigned decimal number. */
    Json unsignedValue(long value) {
        separate();
        out.append(Long.toUnsignedString(value));
        needComma = true;
        return this;
    }

    Json value(String value) {
        separate();
        if (value == null) {
            out.append("null");
        } else {
            string(value);
        }
        needComma = true;
        return this;
    }

    Json nullValue() {
        separate();
        out.append("null");
        needComma = true;
        return this;
    }

    /** Writes an already encoded JSON value, such as an object another writer produced. */
    Json raw(String json) {
        separate();
        out.append(json);
        needComma = true;
        return this;
    }

    @Override
    public String toString() {
        return out.toString();
    }

    private void separate() {
        if (needComma) {
            out.append(',');
        }
    }

    private void string(String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
