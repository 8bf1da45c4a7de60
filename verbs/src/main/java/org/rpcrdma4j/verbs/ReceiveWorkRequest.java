package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A reusable receive request ({@code struct ibv_recv_wr} and its scatter/gather list) in native
 * memory: fill it, {@link QueuePair#post(ReceiveWorkRequest) post} it, fill it again.
 */
public final class ReceiveWorkRequest {
    private final MemorySegment request;
    private final ScatterGather sge;

    /** @param maxSge the most scatter/gather entries it will hold */
    public ReceiveWorkRequest(int maxSge) {
        if (maxSge < 1) {
            throw new IllegalArgumentException("maxSge must be positive, not " + maxSge);
        }
        Arena arena = Arena.ofAuto();
        request = arena.allocate(Structs.IBV_RECV_WR);
        sge = new ScatterGather(arena.allocate(Structs.IBV_SGE, maxSge), request,
                Structs.offset(Structs.IBV_RECV_WR, "sg_list"), Structs.offset(Structs.IBV_RECV_WR, "num_sge"));
    }

    MemorySegment segment() {
        return request;
    }

    /**
     * Starts a new request.
     *
     * @param wrId the number its completion will carry
     * @return this
     */
    public ReceiveWorkRequest reset(long wrId) {
        request.set(JAVA_LONG, Structs.offset(Structs.IBV_RECV_WR, "wr_id"), wrId);
        sge.clear();
        return this;
    }

    /**
     * Adds a buffer to receive into.
     *
     * @return this
     */
    public ReceiveWorkRequest add(MemoryRegion region, long offset, int length) {
        sge.add(region, offset, length);
        return this;
    }

    /**
     * Adds a buffer by address and lkey.
     *
     * @return this
     */
    public ReceiveWorkRequest add(long address, int length, int lkey) {
        sge.add(address, length, lkey);
        return this;
    }
}
