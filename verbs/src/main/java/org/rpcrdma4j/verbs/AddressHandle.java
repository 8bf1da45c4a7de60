package org.rpcrdma4j.verbs;

import java.lang.foreign.MemorySegment;

/**
 * An address handle ({@code struct ibv_ah}): the route to one peer's GID through a local port, which
 * a datagram send names ({@link SrdQueuePair#setDestination}). Made by
 * {@link ProtectionDomain#createAddressHandle}; close it before its domain.
 */
public final class AddressHandle implements AutoCloseable {
    private final MemorySegment ah;
    private final Gid gid;
    private boolean closed;

    AddressHandle(MemorySegment ah, Gid gid) {
        this.ah = ah;
        this.gid = gid;
    }

    MemorySegment pointer() {
        if (closed) {
            throw new IllegalStateException("the address handle to " + gid + " was destroyed");
        }
        return ah;
    }

    /** @return the peer's GID it routes to */
    public Gid gid() {
        return gid;
    }

    /** Destroys it ({@code ibv_destroy_ah}). */
    @Override
    public void close() throws VerbsException {
        if (closed) {
            return;
        }
        try {
            Native.checkReturnedErrno("ibv_destroy_ah", (int) Ibv.DESTROY_AH.invokeExact(ah));
            closed = true;
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw Native.unexpected(t);
        }
    }
}
