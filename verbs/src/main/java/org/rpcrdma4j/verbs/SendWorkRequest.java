package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A reusable send queue request ({@code struct ibv_send_wr} and its scatter/gather list) in
 * native memory. Each use starts with {@link #reset}, names one operation, adds the local buffers
 * and flags, and is {@link QueuePair#post(SendWorkRequest) posted}:
 *
 * <pre>{@code
 * wr.reset(id).rdmaWrite(remoteAddress, rkey).add(region, 0, 4096).signaled();
 * qp.post(wr);
 * }</pre>
 *
 * One request per post: requests are not chained.
 */
public final class SendWorkRequest {
    private static final long WR_ID = Structs.offset(Structs.IBV_SEND_WR, "wr_id");
    private static final long SG_LIST = Structs.offset(Structs.IBV_SEND_WR, "sg_list");
    private static final long OPCODE = Structs.offset(Structs.IBV_SEND_WR, "opcode");
    private static final long SEND_FLAGS = Structs.offset(Structs.IBV_SEND_WR, "send_flags");
    private static final long INVALIDATE_RKEY = Structs.offset(Structs.IBV_SEND_WR, "invalidate_rkey");
    private static final long REMOTE_ADDR = Structs.offset(Structs.IBV_SEND_WR, "wr.rdma.remote_addr");
    private static final long RKEY = Structs.offset(Structs.IBV_SEND_WR, "wr.rdma.rkey");
    private static final long BIND_MW = Structs.offset(Structs.IBV_SEND_WR, "bind_mw.mw");
    private static final long BIND_RKEY = Structs.offset(Structs.IBV_SEND_WR, "bind_mw.rkey");
    private static final long BIND_MR = Structs.offset(Structs.IBV_SEND_WR, "bind_mw.bind_info.mr");
    private static final long BIND_ADDR = Structs.offset(Structs.IBV_SEND_WR, "bind_mw.bind_info.addr");
    private static final long BIND_LENGTH = Structs.offset(Structs.IBV_SEND_WR, "bind_mw.bind_info.length");
    private static final long BIND_ACCESS = Structs.offset(Structs.IBV_SEND_WR, "bind_mw.bind_info.mw_access_flags");

    private final MemorySegment request;
    private final MemorySegment entries;
    private final ScatterGather sge;

    /** @param maxSge the most scatter/gather entries it will hold */
    public SendWorkRequest(int maxSge) {
        if (maxSge < 1) {
            throw new IllegalArgumentException("maxSge must be positive, not " + maxSge);
        }
        Arena arena = Arena.ofAuto();
        request = arena.allocate(Structs.IBV_SEND_WR);
        entries = arena.allocate(Structs.IBV_SGE, maxSge);
        sge = new ScatterGather(entries, request, SG_LIST, Structs.offset(Structs.IBV_SEND_WR, "num_sge"));
    }

    MemorySegment segment() {
        return request;
    }

    /**
     * Starts a new request: clears every field, opcode Send, no flags.
     *
     * @param wrId the number its completion will carry
     * @return this
     */
    public SendWorkRequest reset(long wrId) {
        request.fill((byte) 0);
        request.set(ADDRESS, SG_LIST, entries);
        request.set(JAVA_LONG, WR_ID, wrId);
        sge.clear();
        return send();
    }

    /** @return this, a Send of the local buffers to the peer's next receive */
    public SendWorkRequest send() {
        return opcode(Constants.IBV_WR_SEND);
    }

    /**
     * A Send that also invalidates {@code rkey} at the peer (a memory window or fast-registered
     * key the peer offered), saving it a local invalidation.
     *
     * @return this
     */
    public SendWorkRequest sendWithInvalidate(int rkey) {
        request.set(JAVA_INT, INVALIDATE_RKEY, rkey);
        return opcode(Constants.IBV_WR_SEND_WITH_INV);
    }

    /**
     * An RDMA Write of the local buffers to the peer's memory.
     *
     * @return this
     */
    public SendWorkRequest rdmaWrite(long remoteAddress, int rkey) {
        remote(remoteAddress, rkey);
        return opcode(Constants.IBV_WR_RDMA_WRITE);
    }

    /**
     * An RDMA Read of the peer's memory into the local buffers, which need {@link Access#LOCAL_WRITE}.
     *
     * @return this
     */
    public SendWorkRequest rdmaRead(long remoteAddress, int rkey) {
        remote(remoteAddress, rkey);
        return opcode(Constants.IBV_WR_RDMA_READ);
    }

    /**
     * Invalidates a local memory window's key.
     *
     * @return this
     */
    public SendWorkRequest localInvalidate(int rkey) {
        request.set(JAVA_INT, INVALIDATE_RKEY, rkey);
        return opcode(Constants.IBV_WR_LOCAL_INV);
    }

    /**
     * Binds a type 2 memory window over a range of a registration made with {@link Access#MW_BIND}.
     *
     * @param window the window, unbound or invalidated
     * @param rkey its new key, {@link MemoryWindow#nextRkey} of {@link MemoryWindow#rkey()}; record it
     *             with {@link MemoryWindow#bound(int)} once the bind has completed
     * @param region the registration
     * @param offset where the range starts in it
     * @param length the range's length
     * @param rights what the peer may do: {@link Access#REMOTE_READ}, {@link Access#REMOTE_WRITE}
     * @return this
     */
    public SendWorkRequest bindWindow(MemoryWindow window, int rkey, MemoryRegion region, long offset, long length,
                                      Access... rights) {
        if (offset < 0 || length < 0 || offset + length > region.length()) {
            throw new IndexOutOfBoundsException("range " + offset + "+" + length + " outside a registration of "
                    + region.length() + " bytes");
        }
        return bindWindow(window.pointer(), rkey, region.pointer(), region.address() + offset, length,
                Access.bits(rights));
    }

    SendWorkRequest bindWindow(MemorySegment window, int rkey, MemorySegment region, long address, long length,
                               int rights) {
        request.set(ADDRESS, BIND_MW, window);
        request.set(JAVA_INT, BIND_RKEY, rkey);
        request.set(ADDRESS, BIND_MR, region);
        request.set(JAVA_LONG, BIND_ADDR, address);
        request.set(JAVA_LONG, BIND_LENGTH, length);
        request.set(JAVA_INT, BIND_ACCESS, rights);
        return opcode(Constants.IBV_WR_BIND_MW);
    }

    /**
     * Adds a local buffer: a range of a registration, checked against its bounds.
     *
     * @return this
     */
    public SendWorkRequest add(MemoryRegion region, long offset, int length) {
        sge.add(region, offset, length);
        return this;
    }

    /**
     * Adds a local buffer by address and lkey.
     *
     * @return this
     */
    public SendWorkRequest add(long address, int length, int lkey) {
        sge.add(address, length, lkey);
        return this;
    }

    /** @return this, completing with a work completion even if the queue pair signals only on request */
    public SendWorkRequest signaled() {
        return flag(Constants.IBV_SEND_SIGNALED);
    }

    /** @return this, not started until the RDMA Reads before it on this queue pair have completed */
    public SendWorkRequest fenced() {
        return flag(Constants.IBV_SEND_FENCE);
    }

    /** @return this, a Send that wakes a peer waiting for solicited completions only */
    public SendWorkRequest solicited() {
        return flag(Constants.IBV_SEND_SOLICITED);
    }

    /** @return this, its data copied at post time (at most the queue pair's inline size); buffers need no lkey */
    public SendWorkRequest inline() {
        return flag(Constants.IBV_SEND_INLINE);
    }

    private void remote(long remoteAddress, int rkey) {
        request.set(JAVA_LONG, REMOTE_ADDR, remoteAddress);
        request.set(JAVA_INT, RKEY, rkey);
    }

    private SendWorkRequest opcode(int opcode) {
        request.set(JAVA_INT, OPCODE, opcode);
        return this;
    }

    private SendWorkRequest flag(int flag) {
        request.set(JAVA_INT, SEND_FLAGS, request.get(JAVA_INT, SEND_FLAGS) | flag);
        return this;
    }
}
