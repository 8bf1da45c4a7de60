package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.MemorySegment;

/**
 * A type 2 memory window ({@code struct ibv_mw}). Bound over a range of a registration by a
 * {@link SendWorkRequest#bindWindow bind work request} with a new rkey; invalidated by the peer's
 * Send with Invalidate or a local invalidate, after which it may be bound again with the
 * {@link #nextRkey(int) next} key.
 */
public final class MemoryWindow implements AutoCloseable {
    private final VerbsContext context;
    private final MemorySegment mw;
    private boolean closed;

    MemoryWindow(VerbsContext context, MemorySegment mw) {
        this.context = context;
        this.mw = mw.reinterpret(Structs.IBV_MW.byteSize());
    }

    MemorySegment pointer() {
        if (closed) {
            throw new IllegalStateException("the memory window was deallocated");
        }
        return mw;
    }

    /**
     * @return its current rkey ({@code ibv_mw.rkey}): the provider's at allocation, then the last
     *         one recorded by {@link #bound(int)}; a bind uses {@link #nextRkey(int)} of it
     */
    public int rkey() {
        return mw.get(JAVA_INT, Structs.offset(Structs.IBV_MW, "rkey"));
    }

    /**
     * Records the key of a bind that completed successfully as the window's current key.
     *
     * @param rkey the key the bind work request carried
     */
    public void bound(int rkey) {
        mw.set(JAVA_INT, Structs.offset(Structs.IBV_MW, "rkey"), rkey);
    }

    /**
     * The key for the next bind: the same index in the upper 24 bits, the consumer-owned low byte
     * incremented ({@code ibv_inc_rkey}), so a peer holding the old key is refused.
     *
     * @param rkey the current key
     * @return the next key
     */
    public static int nextRkey(int rkey) {
        return (rkey & 0xffffff00) | ((rkey + 1) & 0xff);
    }

    /** Deallocates it ({@code ibv_dealloc_mw}). */
    @Override
    public void close() throws VerbsException {
        if (closed) {
            return;
        }
        try {
            Native.checkReturnedErrno("ibv_dealloc_mw", (int) ProviderOps.DEALLOC_MW.invokeExact(context.deallocMw, mw));
            closed = true;
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }
}
