package org.rpcrdma4j.fabric.rc;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.rpcrdma4j.fabric.MemoryAccess;
import org.rpcrdma4j.fabric.Registration;

/**
 * Memory the transport registered through {@link RcFabric#register}, in one of three ways: blocks of
 * a {@link ChunkPool}, a native copy of a heap buffer with a registration of its own, or a direct
 * buffer registered where it is; memory a peer reaches on a connection with windows is always a
 * copy, reached through a window of that connection. A copy holds the caller's
 * bytes from registration on ({@link #copyIn}); what the device or a peer put into it goes back into
 * the caller's buffer at deregistration ({@link #copyOut}), which is when the seam says the caller
 * may look: the fabric never reads messages to find out earlier.
 *
 * <p>The registration's bytes are its pieces one after the other: one piece for memory registered on
 * its own, one per block for the pool, whose blocks lie apart under different keys. Local work
 * requests name them by a scatter/gather list ({@link #gather}).
 *
 * @param registration the transport's view
 * @param pieces       the registered native memory the device reads and writes, in order
 * @param device       the device's registration of memory registered on its own, or null for pool blocks
 * @param caller       the caller's bytes (position to limit at registration) when the pieces are a
 *                     copy of them, or null when they are the caller's memory itself
 * @param arena        owns a native copy registered on its own, or null
 * @param blocks       the pool blocks the pieces lie in, in order; empty for memory registered on its own
 * @param access       the rights granted
 * @param connection   the connection whose window the peer reaches it through, or null
 * @param window       that window, or null when the peer uses the registration's own key (or none)
 */
record LocalRegion(Registration registration, List<Piece> pieces, RcDevice.Memory device, ByteBuffer caller,
                   Arena arena, List<ChunkPool.Block> blocks, Set<MemoryAccess> access, RcConnection connection,
                   ChunkWindows.Window window) {

    /**
     * Registered bytes of a region.
     *
     * @param memory the bytes
     * @param lkey   the local key of the registration they lie in
     */
    record Piece(MemorySegment memory, int lkey) {
    }

    /**
     * @param offset where the bytes start in the registration
     * @param length how many, within the registration
     * @return the scatter/gather list of those bytes: one entry per piece they touch, none if
     *     {@code length} is 0
     */
    List<RcDevice.Sge> gather(long offset, long length) {
        List<RcDevice.Sge> list = new ArrayList<>(1);
        long skip = offset;
        long left = length;
        for (Piece piece : pieces) {
            if (left == 0) {
                break;
            }
            long size = piece.memory().byteSize();
            if (skip >= size) {
                skip -= size;
                continue;
            }
            long n = Math.min(size - skip, left);
            list.add(new RcDevice.Sge(piece.memory().address() + skip, (int) n, piece.lkey()));
            left -= n;
            skip = 0;
        }
        return list;
    }

    /** Puts the caller's bytes into the copy, so that what nobody writes reads back unchanged. */
    void copyIn() {
        if (caller != null) {
            copy(true);
        }
    }

    /** Puts what the device or a peer may have written into the copy back into the caller's buffer. */
    void copyOut() {
        if (caller != null && (access.contains(MemoryAccess.LOCAL_WRITE) || access.contains(MemoryAccess.REMOTE_WRITE))) {
            copy(false);
        }
    }

    private void copy(boolean in) {
        MemorySegment bytes = MemorySegment.ofBuffer(caller);
        long at = 0;
        for (Piece piece : pieces) {
            long size = piece.memory().byteSize();
            if (in) {
                MemorySegment.copy(bytes, at, piece.memory(), 0, size);
            } else {
                MemorySegment.copy(piece.memory(), 0, bytes, at, size);
            }
            at += size;
        }
    }
}
