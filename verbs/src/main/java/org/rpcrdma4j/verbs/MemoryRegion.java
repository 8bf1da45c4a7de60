package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.MemorySegment;

/**
 * A memory registration ({@code struct ibv_mr}): native memory the device may access, named
 * locally by its lkey and remotely by its rkey and virtual address.
 */
public final class MemoryRegion implements AutoCloseable {
    private final MemorySegment mr;
    private final MemorySegment memory;
    private final int lkey;
    private final int rkey;
    private boolean closed;

    MemoryRegion(MemorySegment mr, MemorySegment memory) {
        this.mr = mr.reinterpret(Structs.IBV_MR.byteSize());
        this.memory = memory;
        this.lkey = this.mr.get(JAVA_INT, Structs.offset(Structs.IBV_MR, "lkey"));
        this.rkey = this.mr.get(JAVA_INT, Structs.offset(Structs.IBV_MR, "rkey"));
    }

    MemorySegment pointer() {
        if (closed) {
            throw new IllegalStateException("the registration was deregistered");
        }
        return mr;
    }

    /** @return the registered memory */
    public MemorySegment memory() {
        return memory;
    }

    /** @return its virtual address, which peers use with the rkey */
    public long address() {
        return memory.address();
    }

    /** @return its length in bytes */
    public long length() {
        return memory.byteSize();
    }

    /** @return the key for local scatter/gather entries */
    public int lkey() {
        return lkey;
    }

    /** @return the key peers name it by, if registered with remote rights */
    public int rkey() {
        return rkey;
    }

    /** Deregisters it ({@code ibv_dereg_mr}); the memory itself stays the caller's. */
    @Override
    public void close() throws VerbsException {
        if (closed) {
            return;
        }
        try {
            Native.checkReturnedErrno("ibv_dereg_mr", (int) Ibv.DEREG_MR.invokeExact(mr));
            closed = true;
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }
}
