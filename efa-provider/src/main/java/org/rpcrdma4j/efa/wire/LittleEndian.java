package org.rpcrdma4j.efa.wire;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Reads and writes the unsigned little-endian integers of the wire format at absolute indexes of a
 * {@link ByteBuffer}, whatever byte order the buffer is set to (protocol section 1.3: all integers are
 * little endian).
 *
 * <p>Getters widen: a u8 or u16 comes back in an {@code int}, a u32 in a {@code long}; a u64 is
 * returned as the raw {@code long}. Setters refuse a value that does not fit the field, so an encoder
 * cannot truncate silently. Indexes are bounds-checked against the buffer's limit.
 */
final class LittleEndian {

    private static final VarHandle U16 = MethodHandles.byteBufferViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle U32 = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle U64 = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private LittleEndian() {
    }

    static int getU8(ByteBuffer buffer, int index) {
        return buffer.get(index) & 0xff;
    }

    static int getU16(ByteBuffer buffer, int index) {
        return (short) U16.get(buffer, index) & 0xffff;
    }

    static long getU32(ByteBuffer buffer, int index) {
        return Integer.toUnsignedLong((int) U32.get(buffer, index));
    }

    static long getU64(ByteBuffer buffer, int index) {
        return (long) U64.get(buffer, index);
    }

    static void putU8(ByteBuffer buffer, int index, int value) {
        checkRange(value, 0xff, "u8");
        buffer.put(index, (byte) value);
    }

    static void putU16(ByteBuffer buffer, int index, int value) {
        checkRange(value, 0xffff, "u16");
        U16.set(buffer, index, (short) value);
    }

    static void putU32(ByteBuffer buffer, int index, long value) {
        checkRange(value, 0xffff_ffffL, "u32");
        U32.set(buffer, index, (int) value);
    }

    static void putU64(ByteBuffer buffer, int index, long value) {
        U64.set(buffer, index, value);
    }

    private static void checkRange(long value, long max, String kind) {
        if (value < 0 || value > max) {
            throw new IllegalArgumentException("value " + value + " does not fit a " + kind);
        }
    }
}
