package org.rpcrdma4j.fabric.rc;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.rpcrdma4j.fabric.MemoryAccess;
import org.rpcrdma4j.fabric.Registration;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * Memory the transport registered through {@link RcFabric#register}, in one of three kinds, each of
 * which owns how it is given back ({@link #deregister}, then {@link #free}): blocks of a
 * {@link ChunkPool} ({@link Pooled}), memory registered on its own ({@link Own}: a direct buffer where
 * it is, or a native copy of a heap buffer), or either of those reached by the peer through a memory
 * window of one connection ({@link Windowed}). A copy holds the caller's bytes once filled
 * ({@link #copyIn}), unless the memory is only written (an RDMA Read's target, a Write chunk's), whose
 * earlier bytes the seam does not keep; what the device or a peer put into it goes back into the
 * caller's buffer at deregistration ({@link #copyOut}, as far as the caller will read it), which is
 * when the seam says the caller may look: the fabric never reads messages to find out earlier. The
 * copies are pure: {@link RcMemory} decides when and on which thread they are made.
 *
 * <p>The registration's bytes are its pieces one after the other: one piece for memory registered on
 * its own, one per block for the pool, whose blocks lie apart under different keys. Local work
 * requests name them by a scatter/gather list ({@link #gather}).
 */
sealed interface LocalRegion permits LocalRegion.Pooled, LocalRegion.Own, LocalRegion.Windowed {

    /** @return the transport's view */
    Registration registration();

    /** @return the registered native memory the device reads and writes, in order */
    List<Piece> pieces();

    /**
     * @return the caller's bytes (position to limit at registration) when the pieces are a copy of them,
     *     or null when they are the caller's memory itself
     */
    ByteBuffer caller();

    /** @return the rights granted */
    Set<MemoryAccess> access();

    /**
     * Ends the region's own registration, where it has one ({@code ibv_dereg_mr}), so that no key
     * reaches the memory through it; pool blocks have none (their slab stays registered) and a window's
     * key is its connection's to end.
     *
     * @throws VerbsException if deregistering failed
     */
    default void deregister() throws VerbsException {
    }

    /**
     * Gives the memory back, once no key reaches it and no copy is made into or out of it.
     *
     * @throws VerbsException if deregistering the memory under a window failed; it is freed all the same
     */
    void free() throws VerbsException;

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
    default List<RcDevice.Sge> gather(long offset, long length) {
        List<RcDevice.Sge> list = new ArrayList<>(1);
        long skip = offset;
        long left = length;
        for (Piece piece : pieces()) {
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

    /** @return the bytes {@link #copyIn} copies: none for memory that is the caller's or only written */
    default long toCopyIn() {
        return caller() == null || writtenOnly() ? 0 : caller().remaining();
    }

    /**
     * Puts the caller's bytes into the copy, for the device or a peer to read; not for memory only
     * written, which the device or peer fills.
     *
     * @return the bytes copied
     */
    default long copyIn() {
        return toCopyIn() == 0 ? 0 : copy(true, Long.MAX_VALUE);
    }

    /**
     * @return whether the memory is only written, never read, through the registration: an RDMA
     *     Read's target or a Write chunk's, whose earlier bytes the seam does not keep
     */
    private boolean writtenOnly() {
        Set<MemoryAccess> access = access();
        return (access.contains(MemoryAccess.LOCAL_WRITE) || access.contains(MemoryAccess.REMOTE_WRITE))
                && !access.contains(MemoryAccess.REMOTE_READ);
    }

    /**
     * @param readable the bytes, from the first, the caller will read
     * @return the bytes {@link #copyOut} copies: none for memory that is the caller's or never written
     */
    default long toCopyOut(long readable) {
        Set<MemoryAccess> access = access();
        boolean written = access.contains(MemoryAccess.LOCAL_WRITE) || access.contains(MemoryAccess.REMOTE_WRITE);
        return caller() == null || !written ? 0 : Math.max(0, Math.min(readable, caller().remaining()));
    }

    /**
     * Puts what the device or a peer may have written into the copy back into the caller's buffer, as
     * far as the caller will read it.
     *
     * @param readable the bytes, from the first, the caller will read
     * @return the bytes copied
     */
    default long copyOut(long readable) {
        return toCopyOut(readable) == 0 ? 0 : copy(false, readable);
    }

    /** Copies into the pieces or out of them, the first {@code limit} bytes at most; returns how many. */
    private long copy(boolean in, long limit) {
        MemorySegment bytes = MemorySegment.ofBuffer(caller());
        long at = 0;
        for (Piece piece : pieces()) {
            long size = Math.min(piece.memory().byteSize(), limit - at);
            if (size <= 0) {
                break;
            }
            if (in) {
                MemorySegment.copy(bytes, at, piece.memory(), 0, size);
            } else {
                MemorySegment.copy(piece.memory(), 0, bytes, at, size);
            }
            at += size;
        }
        return at;
    }

    /**
     * Blocks of a chunk pool, a copy of the caller's bytes; they go back to their pool.
     *
     * @param registration the transport's view: the first block's address, the pool's key
     * @param pieces       the blocks' bytes in use, in order
     * @param caller       the caller's bytes
     * @param access       the rights granted
     * @param pool         the pool the blocks came from
     * @param blocks       the blocks, in order
     */
    record Pooled(Registration registration, List<Piece> pieces, ByteBuffer caller, Set<MemoryAccess> access,
                  ChunkPool pool, List<ChunkPool.Block> blocks) implements LocalRegion {

        @Override
        public void free() {
            blocks.forEach(pool::give);
        }
    }

    /**
     * Memory with an {@code ibv_reg_mr} of its own: a direct buffer where it is ({@code caller} and
     * {@code arena} null), or a native copy of a heap buffer that {@code arena} frees.
     *
     * @param registration the transport's view
     * @param pieces       the one piece registered
     * @param caller       the caller's bytes when the piece is a copy of them, or null
     * @param access       the rights granted
     * @param device       the device it is registered with
     * @param memory       its registration
     * @param arena        owns a native copy, or null
     */
    record Own(Registration registration, List<Piece> pieces, ByteBuffer caller, Set<MemoryAccess> access,
               RcDevice device, RcDevice.Memory memory, Arena arena) implements LocalRegion {

        @Override
        public void deregister() throws VerbsException {
            device.deregister(memory);
        }

        @Override
        public void free() {
            if (arena != null) {
                arena.close();
            }
        }
    }

    /**
     * Memory a peer reaches through a window of one connection, bound over a window-pool block or over
     * memory registered for windows; its bytes are copied out at deregistration, and the memory goes
     * back once the window's key reaches nothing ({@link RcConnection#unbind}).
     *
     * @param registration the transport's view: the window's key
     * @param memory       the memory under the window
     * @param connection   the connection whose queue pair the window is bound on
     * @param window       the window
     */
    record Windowed(Registration registration, LocalRegion memory, RcConnection connection,
                    ChunkWindows.Window window) implements LocalRegion {

        @Override
        public List<Piece> pieces() {
            return memory.pieces();
        }

        @Override
        public ByteBuffer caller() {
            return memory.caller();
        }

        @Override
        public Set<MemoryAccess> access() {
            return memory.access();
        }

        /** The memory under the window: its key is ended, the window's key reaching nothing already. */
        @Override
        public void free() throws VerbsException {
            try {
                memory.deregister();
            } finally {
                memory.free();
            }
        }
    }
}
