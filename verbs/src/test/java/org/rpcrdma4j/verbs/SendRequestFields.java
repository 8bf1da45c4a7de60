package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;

/**
 * Test helper for other packages: reads a {@link SendWorkRequest}'s fields at the offsets of the
 * rdma-core 44 headers ({@link LayoutFile}), not through the layouts that wrote them.
 */
public final class SendRequestFields {
    private static final LayoutFile C = LayoutFile.RDMA_CORE_44;
    private final MemorySegment wr;

    /** @param request the request to read */
    public SendRequestFields(SendWorkRequest request) {
        this.wr = request.segment();
    }

    /** @return the value of a constant of the headers */
    public static int constant(String name) {
        return C.constant(name);
    }

    /** @return {@code ibv_send_wr.wr_id} */
    public long wrId() {
        return wr.get(JAVA_LONG, C.offset("ibv_send_wr.wr_id"));
    }

    /** @return {@code ibv_send_wr.opcode} */
    public int opcode() {
        return wr.get(JAVA_INT, C.offset("ibv_send_wr.opcode"));
    }

    /** @return {@code ibv_send_wr.send_flags} */
    public int sendFlags() {
        return wr.get(JAVA_INT, C.offset("ibv_send_wr.send_flags"));
    }

    /** @return {@code ibv_send_wr.invalidate_rkey} */
    public int invalidateRkey() {
        return wr.get(JAVA_INT, C.offset("ibv_send_wr.invalidate_rkey"));
    }

    /** @return {@code ibv_send_wr.wr.rdma.remote_addr} */
    public long remoteAddress() {
        return wr.get(JAVA_LONG, C.offset("ibv_send_wr.wr.rdma.remote_addr"));
    }

    /** @return {@code ibv_send_wr.wr.rdma.rkey} */
    public int rkey() {
        return wr.get(JAVA_INT, C.offset("ibv_send_wr.wr.rdma.rkey"));
    }

    /** @return {@code ibv_send_wr.num_sge} */
    public int numSge() {
        return wr.get(JAVA_INT, C.offset("ibv_send_wr.num_sge"));
    }

    /** @return {@code ibv_send_wr.next} is NULL: the request is not chained */
    public boolean alone() {
        return wr.get(ADDRESS, C.offset("ibv_send_wr.next")).equals(MemorySegment.NULL);
    }

    /** @return the {@code addr}, {@code length} and {@code lkey} of scatter/gather entry {@code i} */
    public long[] sge(int i) {
        MemorySegment list = wr.get(ADDRESS, C.offset("ibv_send_wr.sg_list")).reinterpret((i + 1) * C.size("ibv_sge"));
        long base = i * C.size("ibv_sge");
        return new long[] {list.get(JAVA_LONG, base + C.offset("ibv_sge.addr")),
            list.get(JAVA_INT, base + C.offset("ibv_sge.length")), list.get(JAVA_INT, base + C.offset("ibv_sge.lkey"))};
    }
}
