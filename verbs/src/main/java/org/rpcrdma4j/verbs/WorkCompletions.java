package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * A reusable array of work completions ({@code struct ibv_wc[]}) that
 * {@link CompletionQueue#poll} fills; the accessors read the native array in place, so polling
 * allocates nothing. Entries past the last poll's count are stale.
 */
public final class WorkCompletions {
    private static final long SIZE = Structs.IBV_WC.byteSize();
    private static final long WR_ID = Structs.offset(Structs.IBV_WC, "wr_id");
    private static final long STATUS = Structs.offset(Structs.IBV_WC, "status");
    private static final long OPCODE = Structs.offset(Structs.IBV_WC, "opcode");
    private static final long VENDOR_ERR = Structs.offset(Structs.IBV_WC, "vendor_err");
    private static final long BYTE_LEN = Structs.offset(Structs.IBV_WC, "byte_len");
    private static final long INVALIDATED_RKEY = Structs.offset(Structs.IBV_WC, "invalidated_rkey");
    private static final long QP_NUM = Structs.offset(Structs.IBV_WC, "qp_num");
    private static final long SRC_QP = Structs.offset(Structs.IBV_WC, "src_qp");
    private static final long WC_FLAGS = Structs.offset(Structs.IBV_WC, "wc_flags");
    private static final long SLID = Structs.offset(Structs.IBV_WC, "slid");

    private final MemorySegment entries;
    private final int capacity;
    private int count;

    /**
     * @param capacity the most completions one poll returns
     */
    public WorkCompletions(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive, not " + capacity);
        }
        this.capacity = capacity;
        this.entries = Arena.ofAuto().allocate(Structs.IBV_WC, capacity);
    }

    MemorySegment segment() {
        return entries;
    }

    void filled(int n) {
        count = n;
    }

    /** @return the most completions one poll returns */
    public int capacity() {
        return capacity;
    }

    /** @return how many the last poll returned */
    public int count() {
        return count;
    }

    private long at(int i) {
        Objects.checkIndex(i, count);
        return i * SIZE;
    }

    /** @return the wr_id of the request completion i completed */
    public long wrId(int i) {
        return entries.get(JAVA_LONG, at(i) + WR_ID);
    }

    /** @return completion i's status */
    public WcStatus status(int i) {
        return WcStatus.of(entries.get(JAVA_INT, at(i) + STATUS));
    }

    /** @return whether completion i succeeded, without the enum lookup */
    public boolean succeeded(int i) {
        return entries.get(JAVA_INT, at(i) + STATUS) == 0;
    }

    /** @return what completion i completed; valid only if it succeeded */
    public WcOpcode opcode(int i) {
        return WcOpcode.of(entries.get(JAVA_INT, at(i) + OPCODE));
    }

    /** @return the provider's own error code of a failed completion i */
    public int vendorError(int i) {
        return entries.get(JAVA_INT, at(i) + VENDOR_ERR);
    }

    /** @return bytes received, for a receive completion i */
    public int byteLength(int i) {
        return entries.get(JAVA_INT, at(i) + BYTE_LEN);
    }

    /** @return the queue pair number completion i belongs to */
    public int qpNum(int i) {
        return entries.get(JAVA_INT, at(i) + QP_NUM);
    }

    /**
     * @return the sender's queue pair number, for a receive completion i on a datagram queue pair (UD,
     *     EFA SRD); undefined on RC
     */
    public int sourceQpNum(int i) {
        return entries.get(JAVA_INT, at(i) + SRC_QP);
    }

    /**
     * @return {@code slid}, u16, of a receive completion i: on InfiniBand the sender's LID; libefa puts
     *     there the number of the receiver's address handle for the sender ({@code efadv_query_ah}),
     *     0xFFFF if the receiver has none
     */
    public int slid(int i) {
        return Short.toUnsignedInt(entries.get(JAVA_SHORT, at(i) + SLID));
    }

    /**
     * Whether completion i is the receive of a Send with Invalidate: {@code IBV_WC_WITH_INV}, or, on
     * a successful receive, the bit libibverbs calls {@code IBV_WC_IP_CSUM_OK}. rdma_rxe (Linux 6.1,
     * rdma-core 44) writes the kernel's {@code IB_WC_WITH_INVALIDATE} ({@code 1 << 2}) into user
     * completion entries, where libibverbs' {@code IBV_WC_WITH_INV} is {@code 1 << 3}; a checksum flag
     * is set only on UD and raw packet receives, which an RC queue pair does not make.
     *
     * @return whether receive i carries an invalidated rkey
     */
    public boolean withInvalidate(int i) {
        int flags = entries.get(JAVA_INT, at(i) + WC_FLAGS);
        if ((flags & Constants.IBV_WC_WITH_INV) != 0) {
            return true;
        }
        return (flags & Constants.IBV_WC_IP_CSUM_OK) != 0 && succeeded(i) && opcode(i) == WcOpcode.RECV;
    }

    /**
     * @return the rkey the peer invalidated by receive i
     * @throws IllegalStateException if receive i was no Send with Invalidate
     */
    public int invalidatedRkey(int i) {
        if (!withInvalidate(i)) {
            throw new IllegalStateException("completion " + i + " carries no invalidated rkey");
        }
        return entries.get(JAVA_INT, at(i) + INVALIDATED_RKEY);
    }

    /** @return completion i described for a log line */
    public String describe(int i) {
        return "wr_id=" + wrId(i) + " status=" + status(i) + " (" + status(i).description() + ") opcode="
                + opcode(i) + " byte_len=" + byteLength(i) + " qp_num=" + qpNum(i)
                + (succeeded(i) ? "" : " vendor_err=" + vendorError(i))
                + (withInvalidate(i) ? " invalidated_rkey=" + Integer.toUnsignedString(invalidatedRkey(i), 16) : "");
    }
}
