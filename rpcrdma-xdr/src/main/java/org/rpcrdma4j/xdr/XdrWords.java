package org.rpcrdma4j.xdr;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Big-endian XDR word access at absolute indexes of any {@link ByteBuffer}, whatever the buffer's own
 * byte order, without changing its position or order.
 */
final class XdrWords {

    /** Bytes in an XDR unit (RFC 4506 §3). */
    static final int UNIT = 4;

    private static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private XdrWords() {
    }

    static int getInt(ByteBuffer buffer, int index) {
        return (int) INT.get(buffer, index);
    }

    static long getLong(ByteBuffer buffer, int index) {
        return (long) LONG.get(buffer, index);
    }

    static void putInt(ByteBuffer buffer, int index, int value) {
        INT.set(buffer, index, value);
    }

    static void putLong(ByteBuffer buffer, int index, long value) {
        LONG.set(buffer, index, value);
    }
}
