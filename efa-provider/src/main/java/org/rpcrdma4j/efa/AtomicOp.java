package org.rpcrdma4j.efa;

/**
 * An atomic operation, numbered as libfabric's {@code enum fi_op} ({@code rdma/fi_domain.h}), the number an RTA
 * packet carries in {@code atomic_op} (EFA RDM protocol v4 §3.3, tables 3.13 and 3.14), with the meaning
 * fi_atomic(3) gives it; {@code target} is the peer's element, {@code buf} the operand, {@code compare} the
 * compare operand. Which call takes which operation is libfabric's ({@code ofi_atomic_valid} over the handler
 * tables of {@code util_atomic.c}, all defined for every integer type): {@link #isWrite() fi_atomic} takes
 * MIN to BXOR and ATOMIC_WRITE, {@link #isFetch() fi_fetch_atomic} those and ATOMIC_READ,
 * {@link #isCompare() fi_compare_atomic} CSWAP to MSWAP. A fetch or compare returns the target's elements as
 * they were before the operation.
 */
public enum AtomicOp {
    /** {@code FI_MIN}: {@code if (buf < target) target = buf}. */
    MIN(0),
    /** {@code FI_MAX}: {@code if (buf > target) target = buf}. */
    MAX(1),
    /** {@code FI_SUM}: {@code target += buf}, wrapping. */
    SUM(2),
    /** {@code FI_PROD}: {@code target *= buf}, wrapping. */
    PROD(3),
    /** {@code FI_LOR}: {@code target = target || buf} (1 or 0). */
    LOR(4),
    /** {@code FI_LAND}: {@code target = target && buf} (1 or 0). */
    LAND(5),
    /** {@code FI_BOR}: {@code target |= buf}. */
    BOR(6),
    /** {@code FI_BAND}: {@code target &= buf}. */
    BAND(7),
    /** {@code FI_LXOR}: {@code target = (target && !buf) || (!target && buf)} (1 or 0). */
    LXOR(8),
    /** {@code FI_BXOR}: {@code target ^= buf}. */
    BXOR(9),
    /** {@code FI_ATOMIC_READ}: the target unchanged; fetch only, whose operand is ignored. */
    ATOMIC_READ(10),
    /** {@code FI_ATOMIC_WRITE}: {@code target = buf}; fetched, an exchange. */
    ATOMIC_WRITE(11),
    /** {@code FI_CSWAP}: {@code if (compare == target) target = buf}. */
    CSWAP(12),
    /** {@code FI_CSWAP_NE}: {@code if (compare != target) target = buf}. */
    CSWAP_NE(13),
    /** {@code FI_CSWAP_LE}: {@code if (compare <= target) target = buf}. */
    CSWAP_LE(14),
    /** {@code FI_CSWAP_LT}: {@code if (compare < target) target = buf}. */
    CSWAP_LT(15),
    /** {@code FI_CSWAP_GE}: {@code if (compare >= target) target = buf}. */
    CSWAP_GE(16),
    /** {@code FI_CSWAP_GT}: {@code if (compare > target) target = buf}. */
    CSWAP_GT(17),
    /** {@code FI_MSWAP}: {@code target = (buf & compare) | (target & ~compare)}. */
    MSWAP(18);

    private static final AtomicOp[] BY_VALUE = values();

    private final int value;

    AtomicOp(int value) {
        this.value = value;
    }

    /** @return the {@code fi_op} number, as on the wire */
    public int value() {
        return value;
    }

    /** @return whether {@code fi_atomic} (WRITE_RTA) takes it */
    public boolean isWrite() {
        return value <= ATOMIC_WRITE.value && this != ATOMIC_READ;
    }

    /** @return whether {@code fi_fetch_atomic} (FETCH_RTA) takes it */
    public boolean isFetch() {
        return value <= ATOMIC_WRITE.value;
    }

    /** @return whether {@code fi_compare_atomic} (COMPARE_RTA, with a compare operand) takes it */
    public boolean isCompare() {
        return value >= CSWAP.value;
    }

    /**
     * @param value an {@code atomic_op} from the wire
     * @return the operation it numbers, or null if it is none
     */
    public static AtomicOp fromValue(long value) {
        return value >= 0 && value < BY_VALUE.length ? BY_VALUE[(int) value] : null;
    }
}
