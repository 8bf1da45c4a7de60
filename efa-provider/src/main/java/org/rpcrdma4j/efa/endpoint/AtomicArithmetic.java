package org.rpcrdma4j.efa.endpoint;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.rpcrdma4j.efa.AtomicDatatype;
import org.rpcrdma4j.efa.AtomicOp;

/**
 * What the target of an emulated atomic does to its memory, element by element, as libfabric's
 * {@code ofi_atomic_write_handlers}, {@code ofi_atomic_readwrite_handlers} and {@code ofi_atomic_swap_handlers}
 * ({@code util_atomic.c}) do: elements little endian whatever the buffers' byte order, arithmetic wrapping at
 * the element's width, comparisons signed or unsigned as the type is, each result the element before the
 * operation. Atomic with respect to other emulated atomics because the one progress thread applies them all,
 * in the order their requests' msg_ids give (not with respect to the device's direct RDMA, as in libfabric).
 */
final class AtomicArithmetic {

    private static final VarHandle I16 = MethodHandles.byteBufferViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle I32 = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle I64 = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private AtomicArithmetic() {
    }

    /**
     * Applies {@code op} to every element of {@code target}, whose length the caller has checked is a whole
     * number of elements and that of each operand.
     *
     * @param operand the request's {@code buf} elements; ignored by ATOMIC_READ
     * @param compare the {@code compare} elements of a compare atomic, else null
     * @param result where the elements before the operation go (fetch, compare), or null
     */
    static void apply(AtomicDatatype type, AtomicOp op, ByteBuffer target, ByteBuffer operand, ByteBuffer compare,
                      ByteBuffer result) {
        final int count = target.capacity() / type.size();
        for (int i = 0; i < count; i++) {
            final long before = get(type, target, i);
            if (result != null) {
                put(type, result, i, before);
            }
            if (op != AtomicOp.ATOMIC_READ) {
                put(type, target, i, combine(type, op, before, get(type, operand, i),
                        compare == null ? 0 : get(type, compare, i)));
            }
        }
    }

    /** One element's new value; {@code dst}, {@code src} and {@code cmp} are widened as the type's sign says. */
    private static long combine(AtomicDatatype type, AtomicOp op, long dst, long src, long cmp) {
        return switch (op) {
            case MIN -> compare(type, src, dst) < 0 ? src : dst;
            case MAX -> compare(type, src, dst) > 0 ? src : dst;
            case SUM -> dst + src;
            case PROD -> dst * src;
            case LOR -> dst != 0 || src != 0 ? 1 : 0;
            case LAND -> dst != 0 && src != 0 ? 1 : 0;
            case BOR -> dst | src;
            case BAND -> dst & src;
            case LXOR -> (dst != 0) != (src != 0) ? 1 : 0;
            case BXOR -> dst ^ src;
            case ATOMIC_READ -> dst;
            case ATOMIC_WRITE -> src;
            case CSWAP -> cmp == dst ? src : dst;
            case CSWAP_NE -> cmp != dst ? src : dst;
            case CSWAP_LE -> compare(type, cmp, dst) <= 0 ? src : dst;
            case CSWAP_LT -> compare(type, cmp, dst) < 0 ? src : dst;
            case CSWAP_GE -> compare(type, cmp, dst) >= 0 ? src : dst;
            case CSWAP_GT -> compare(type, cmp, dst) > 0 ? src : dst;
            case MSWAP -> (src & cmp) | (dst & ~cmp);
        };
    }

    /** Widened values of narrower types compare as longs; only UINT64 needs an unsigned comparison. */
    private static int compare(AtomicDatatype type, long a, long b) {
        return type == AtomicDatatype.UINT64 ? Long.compareUnsigned(a, b) : Long.compare(a, b);
    }

    private static long get(AtomicDatatype type, ByteBuffer buffer, int index) {
        final int at = index * type.size();
        return switch (type) {
            case INT8 -> buffer.get(at);
            case UINT8 -> buffer.get(at) & 0xff;
            case INT16 -> (short) I16.get(buffer, at);
            case UINT16 -> (short) I16.get(buffer, at) & 0xffff;
            case INT32 -> (int) I32.get(buffer, at);
            case UINT32 -> Integer.toUnsignedLong((int) I32.get(buffer, at));
            case INT64, UINT64 -> (long) I64.get(buffer, at);
        };
    }

    /** Stores the low bits of {@code value}: the wrap of SUM and PROD at the element's width. */
    private static void put(AtomicDatatype type, ByteBuffer buffer, int index, long value) {
        final int at = index * type.size();
        switch (type.size()) {
            case 1 -> buffer.put(at, (byte) value);
            case 2 -> I16.set(buffer, at, (short) value);
            case 4 -> I32.set(buffer, at, (int) value);
            default -> I64.set(buffer, at, value);
        }
    }
}
