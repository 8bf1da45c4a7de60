package org.rpcrdma4j.efa;

/**
 * The element type of an atomic operation, numbered as libfabric's {@code enum fi_datatype}
 * ({@code rdma/fi_domain.h}), the number an RTA packet carries in {@code atomic_datatype} (EFA RDM protocol v4
 * §3.3, tables 3.13 and 3.14). Elements are little endian in memory and on the wire, as on the x86 hosts EFA
 * runs on. The integer types only: the floating-point, complex and 128-bit types libfabric also numbers are
 * not served (a peer's request naming one is refused).
 */
public enum AtomicDatatype {
    /** {@code FI_INT8}: a signed byte. */
    INT8(0, 1, true),
    /** {@code FI_UINT8}: an unsigned byte. */
    UINT8(1, 1, false),
    /** {@code FI_INT16}. */
    INT16(2, 2, true),
    /** {@code FI_UINT16}. */
    UINT16(3, 2, false),
    /** {@code FI_INT32}. */
    INT32(4, 4, true),
    /** {@code FI_UINT32}. */
    UINT32(5, 4, false),
    /** {@code FI_INT64}. */
    INT64(6, 8, true),
    /** {@code FI_UINT64}. */
    UINT64(7, 8, false);

    private static final AtomicDatatype[] BY_VALUE = values();

    private final int value;
    private final int size;
    private final boolean signed;

    AtomicDatatype(int value, int size, boolean signed) {
        this.value = value;
        this.size = size;
        this.signed = signed;
    }

    /** @return the {@code fi_datatype} number, as on the wire */
    public int value() {
        return value;
    }

    /** @return the size of one element in bytes ({@code ofi_datatype_size}) */
    public int size() {
        return size;
    }

    /** @return whether elements are two's-complement signed (comparisons by MIN, MAX and CSWAP_LE..GT) */
    public boolean signed() {
        return signed;
    }

    /**
     * @param value an {@code atomic_datatype} from the wire
     * @return the type it numbers, or null if it is none this endpoint serves
     */
    public static AtomicDatatype fromValue(long value) {
        return value >= 0 && value < BY_VALUE.length ? BY_VALUE[(int) value] : null;
    }
}
