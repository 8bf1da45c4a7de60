package org.rpcrdma4j.fabric.rc;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.rpcrdma4j.fabric.MemoryAccess;
import org.rpcrdma4j.fabric.Registration;
import org.rpcrdma4j.verbs.VerbsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RC fabric's memory strategy (xprtrdma's frwr_ops.c, in its place): which memory a registration
 * gets, and the figures of it. Chunk memory no peer may touch comes from blocks of {@link #pool};
 * memory a peer reaches on a connection with windows from blocks of {@link #windowPool} under a window
 * of that connection; anything else, and what a pool has no room for, gets an {@code ibv_reg_mr} of
 * its own, counted as {@link RcCounter#PER_CALL_REGISTRATIONS}. Every copy of the caller's bytes
 * made here is counted ({@link #bytesCopied}), as are the connections' copies through their message
 * slots ({@link #copied}). Only the fabric's turn holder calls it; the figures are volatile for
 * statistics on any thread.
 *
 * <h2>Copies, outside the turn</h2>
 * No chunk copy is made in the fabric's turn, which every connection needs: each is handed to
 * {@code outsideTurn} ({@link ChunkCopier}), made by a thread that does not hold the turn, and what
 * follows it comes back to the turn. A registration's bytes are copied in after {@link #register}
 * returns; the work that could read them waits meanwhile, held back by its connection
 * ({@link RcConnection}): an RDMA that names the region, and, for memory registered for a connection,
 * every Send of that connection, one of which carries its key to the peer. What was written is copied
 * out after {@link #deregister} returns, and the caller's continuation runs once it is made. A region's
 * memory goes back only when no copy is made of it any more, and the caller's buffer is the fabric's
 * until no copy reads or writes it: a fill not yet begun when its region is deregistered is called
 * off, one begun holds the deregistration's continuation back. Two forms of the seam still copy at once,
 * in the turn, because their caller reads on at once: {@link #register} of memory a peer reaches for no
 * connection (no Send could be held back for it), and {@link #deregister} without a continuation; the
 * transport uses neither for memory it copies.
 */
final class RcMemory {

    private static final Logger LOG = LoggerFactory.getLogger(RcMemory.class);

    /** For tests: told on the copying thread before each chunk copy is made. */
    @FunctionalInterface
    interface CopyWatch {

        /**
         * @param in    whether the copy is into registered memory (else out of it)
         * @param bytes the bytes about to be copied
         */
        void copying(boolean in, long bytes);
    }

    private final RcDevice device;
    private final ChunkPool pool;
    private final ChunkPool windowPool;
    private final Consumer<ChunkCopier.Copy> outsideTurn;
    /**
     * Live registrations, by the transport's view of them: their handle (the rkey) alone does not
     * tell them apart, as rxe gives every region no peer may touch rkey 0.
     */
    private final Map<Registration, LocalRegion> regions = new HashMap<>();
    /** Regions a copy is being made into or out of, outside the turn, and the copy. */
    private final Map<LocalRegion, ChunkCopier.Copy> copying = new IdentityHashMap<>();
    /**
     * Continuations of deregistrations of regions whose fill had begun: they run once it has ended, as
     * the caller's bytes are the fabric's until then.
     */
    private final Map<LocalRegion, Runnable> whenFilled = new IdentityHashMap<>();
    /** Of those, the regions to give back once their copy is made: deregistered, no key reaches them. */
    private final Set<LocalRegion> freeAfterCopy = Collections.newSetFromMap(new IdentityHashMap<>());
    /** Connections holding work back until a copy into the memory it reads is made. */
    private final Set<RcConnection> holding = new LinkedHashSet<>();
    /** Memory windows are parked over ({@link ChunkWindows}), registered with the first window's; or null. */
    private RcDevice.Memory parking;
    private Arena parkingArena;
    volatile CopyWatch beforeCopy = (in, bytes) -> { };
    private volatile int registrations;
    private volatile long perCallRegistrations;
    private volatile long windowsBound;
    private volatile long remoteInvalidations;
    private volatile long localInvalidations;
    private volatile long bytesCopied;

    /**
     * @param device      the device to register with
     * @param poolBytes   the bound of each pool
     * @param outsideTurn makes a chunk copy outside the turn, then runs what follows it in the turn
     */
    RcMemory(RcDevice device, long poolBytes, Consumer<ChunkCopier.Copy> outsideTurn) {
        this.device = device;
        this.pool = new ChunkPool(device, poolBytes);
        this.windowPool = new ChunkPool(device, poolBytes, true);
        this.outsideTurn = outsideTurn;
    }

    /**
     * Registers memory a peer reaches through a window of {@code connection}: copied into a block of
     * the window pool (or, larger than its blocks or with the pool full, a native copy registered for
     * windows, counted as a per-call registration), with the bind posted now, ahead of the Send that
     * carries its key.
     *
     * @return the registration, or null if the window could not be bound or registering failed
     */
    Registration registerWindowed(RcConnection connection, ByteBuffer memory, Set<MemoryAccess> access) {
        ByteBuffer bytes = memory.slice();
        LocalRegion region;
        try {
            region = windowed(connection, bytes, Set.copyOf(access));
        } catch (VerbsException e) {
            LOG.warn("registering {} bytes for a memory window failed: {}", bytes.remaining(), e.getMessage());
            return null;
        }
        if (region == null) {
            return null;
        }
        return added(region, connection);
    }

    private LocalRegion windowed(RcConnection connection, ByteBuffer bytes, Set<MemoryAccess> rights)
            throws VerbsException {
        parking();
        int length = bytes.remaining();
        ChunkPool.Block block = windowPool.take(length);
        LocalRegion under;
        RcDevice.Memory registered;
        if (block != null) {
            registered = block.slab();
            under = new LocalRegion.Pooled(null, List.of(new LocalRegion.Piece(block.memory().asSlice(0, length),
                    registered.lkey())), bytes, rights, windowPool, List.of(block));
        } else {
            NativeCopy copy = nativeCopy(length, device::registerForWindows);
            registered = copy.registered();
            under = new LocalRegion.Own(null, List.of(new LocalRegion.Piece(copy.memory(), registered.lkey())), bytes,
                    rights, device, registered, copy.arena());
            perCallRegistrations++;
        }
        long address = under.pieces().get(0).memory().address();
        ChunkWindows.Window window = connection.bind(registered, address, length, rights);
        if (window == null) {
            discard(under);
            return null;
        }
        windowsBound++;
        return new LocalRegion.Windowed(new Registration(window.rkey(), address, length), under, connection, window);
    }

    /**
     * Registers chunk memory: through pool blocks when no peer may touch it and the pool has room
     * (several blocks for more than a block holds), otherwise with an {@code ibv_reg_mr} of its own (a
     * heap buffer as a native copy). A pool at its bound thus costs a registration, not the call: the
     * transport answers a null registration with ERR_CHUNK, which fails the RPC at the client.
     *
     * @param on the connection whose peer reaches the memory, which holds back its Sends until the
     *           memory is filled; null for memory no peer reaches, or reached over any connection
     * @return the registration, or null when {@code ibv_reg_mr} fails or the memory is registered already
     */
    Registration register(ByteBuffer memory, Set<MemoryAccess> access, RcConnection on) {
        ByteBuffer bytes = memory.slice();
        Set<MemoryAccess> rights = Set.copyOf(access);
        LocalRegion region;
        try {
            region = remote(rights) ? null : fromPool(bytes, rights);
            if (region == null) {
                region = registeredAlone(bytes, rights);
            }
        } catch (VerbsException e) {
            LOG.warn("ibv_reg_mr of {} bytes failed: {}", bytes.remaining(), e.getMessage());
            return null;
        }
        if (regions.containsKey(region.registration())) {
            // the same memory registered twice, both without remote access: one key for two regions
            LOG.warn("{} is registered already", region.registration());
            discard(region);
            return null;
        }
        return added(region, on);
    }

    private Registration added(LocalRegion region, RcConnection on) {
        regions.put(region.registration(), region);
        registrations = regions.size();
        fill(region, on);
        return region.registration();
    }

    /**
     * Puts the caller's bytes into a region's copy: outside the turn, while the work that could read
     * them is held back (an RDMA naming the region; the Sends of the connection it is registered for);
     * at once, in the turn, for memory a peer reaches over any connection, which nothing holds back.
     */
    private void fill(LocalRegion region, RcConnection on) {
        if (region.toCopyIn() == 0) {
            return;
        }
        if (on == null && remote(region.access())) {
            bytesCopied += copy(region, true, Long.MAX_VALUE);
            return;
        }
        if (on != null) {
            on.filling();
        }
        ChunkCopier.Copy fill = new ChunkCopier.Copy(() -> copy(region, true, Long.MAX_VALUE), copied -> {
            bytesCopied += copied;
            copyMade(region);
            if (on != null) {
                on.filled();
            }
            for (RcConnection connection : holding.toArray(new RcConnection[0])) {
                connection.drain();
            }
            Runnable then = whenFilled.remove(region);
            if (then != null) {
                then.run();
            }
        });
        copying.put(region, fill);
        outsideTurn.accept(fill);
    }

    /** @return whether a copy into the region is being made: work that reads it waits */
    boolean filling(LocalRegion region) {
        return region != null && copying.containsKey(region);
    }

    /** A connection holds work back until copies are made; drained after each. */
    void holding(RcConnection connection) {
        holding.add(connection);
    }

    /** A connection holds nothing back any more. */
    void notHolding(RcConnection connection) {
        holding.remove(connection);
    }

    /** @return a region of pool blocks, or null if the pool has no room for them */
    private LocalRegion fromPool(ByteBuffer bytes, Set<MemoryAccess> access) throws VerbsException {
        List<ChunkPool.Block> blocks = pool.takeBlocks(bytes.remaining());
        if (blocks == null) {
            return null;
        }
        List<LocalRegion.Piece> pieces = new ArrayList<>(blocks.size());
        long left = bytes.remaining();
        for (ChunkPool.Block block : blocks) {
            long length = Math.min(left, block.memory().byteSize());
            pieces.add(new LocalRegion.Piece(block.memory().asSlice(0, length), block.slab().lkey()));
            left -= length;
        }
        // its address is its first block's, which no other live region has; its bytes go on in the next blocks
        ChunkPool.Block first = blocks.get(0);
        Registration registration = new Registration(first.slab().rkey(), first.memory().address(), bytes.remaining());
        return new LocalRegion.Pooled(registration, pieces, bytes, access, pool, blocks);
    }

    private LocalRegion registeredAlone(ByteBuffer bytes, Set<MemoryAccess> access) throws VerbsException {
        perCallRegistrations++;
        if (bytes.isDirect()) {
            MemorySegment segment = MemorySegment.ofBuffer(bytes);
            RcDevice.Memory registered = device.register(segment, access);
            return new LocalRegion.Own(new Registration(registered.rkey(), registered.address(), bytes.remaining()),
                    List.of(new LocalRegion.Piece(segment, registered.lkey())), null, access, device, registered, null);
        }
        NativeCopy copy = nativeCopy(bytes.remaining(), memory -> device.register(memory, access));
        RcDevice.Memory registered = copy.registered();
        return new LocalRegion.Own(new Registration(registered.rkey(), registered.address(), bytes.remaining()),
                List.of(new LocalRegion.Piece(copy.memory(), registered.lkey())), bytes, access, device, registered,
                copy.arena());
    }

    /**
     * Invalidates a registration and copies what was written into a copy back to the caller, as far as
     * the caller will read it: outside the turn when the caller has a continuation, which runs once the
     * copy is made, else at once. Its memory goes back once no key reaches it and no copy is made of
     * it: a window's once its connection has invalidated the window ({@link RcConnection#unbind}).
     *
     * <p>A region still being filled was never reached (the work that exposes it waits for the fill):
     * nothing was written into it, and a fill not yet begun is called off. One begun on another thread
     * still reads the caller's bytes, which are the fabric's until it ends: the continuation runs then,
     * and without one this waits for it, in the turn (a call that ended in the moment its chunk was
     * copied in; the transport deregisters with a continuation wherever that can be).
     *
     * @param readable the bytes, from the first, the caller will read: only these are copied back
     * @param then     runs in the turn once they are in the caller's buffer; null to copy them at once
     * @throws IllegalStateException if it is not registered here, or deregistered already
     */
    void deregister(Registration registration, long readable, Runnable then) {
        LocalRegion region = regions.remove(registration);
        if (region == null) {
            throw new IllegalStateException("not registered here or deregistered already: " + registration);
        }
        registrations = regions.size();
        ChunkCopier.Copy fill = copying.get(region);
        boolean fillReads = fill != null && !fill.callOff();
        if (fillReads && then == null) {
            while (!fill.ended()) {
                Thread.yield();
            }
        }
        try {
            // before the copy: no peer writes into the memory while it is copied
            region.deregister();
        } catch (VerbsException e) {
            LOG.warn("ibv_dereg_mr of {} failed: {}", region.registration(), e.getMessage());
        }
        long back = fill != null ? 0 : region.toCopyOut(readable);
        if (back > 0 && then == null) {
            bytesCopied += copy(region, false, readable);
        } else if (back > 0) {
            ChunkCopier.Copy out = new ChunkCopier.Copy(() -> copy(region, false, readable), copied -> {
                bytesCopied += copied;
                copyMade(region);
                then.run();
            });
            copying.put(region, out);
            outsideTurn.accept(out);
        }
        if (region instanceof LocalRegion.Windowed windowed) {
            windowed.connection().unbind(windowed);
        } else {
            release(region);
        }
        if (back == 0 && then != null) {
            if (fillReads && !fill.ended()) {
                whenFilled.put(region, then);
            } else {
                then.run();
            }
        }
    }

    /** Gives back the memory of a region no key reaches any more, once no copy is made of it. */
    void release(LocalRegion region) {
        if (copying.containsKey(region)) {
            freeAfterCopy.add(region);
        } else {
            free(region);
        }
    }

    /** A copy into or out of a region is made: its memory goes back if nothing reaches it any more. */
    private void copyMade(LocalRegion region) {
        copying.remove(region);
        if (freeAfterCopy.remove(region)) {
            free(region);
        }
    }

    private static void free(LocalRegion region) {
        try {
            region.free();
        } catch (VerbsException e) {
            LOG.warn("ibv_dereg_mr of the memory under {} failed: {}", region.registration(), e.getMessage());
        }
    }

    /** Gives back a region never handed out. */
    private static void discard(LocalRegion region) {
        try {
            region.deregister();
        } catch (VerbsException e) {
            LOG.warn("ibv_dereg_mr of {} failed: {}", region.registration(), e.getMessage());
        }
        free(region);
    }

    /** Copies into a region's copy or out of it: on the copying thread, told to {@link #beforeCopy} first. */
    private long copy(LocalRegion region, boolean in, long readable) {
        beforeCopy.copying(in, in ? region.toCopyIn() : region.toCopyOut(readable));
        return in ? region.copyIn() : region.copyOut(readable);
    }

    /**
     * @param registration a registration of this fabric
     * @return its region
     * @throws IllegalArgumentException if it is not registered here
     */
    LocalRegion region(Registration registration) {
        LocalRegion region = regions.get(registration);
        if (region == null) {
            throw new IllegalArgumentException("not registered here: " + registration);
        }
        return region;
    }

    /**
     * @return a few bytes registered for windows, which a parked window is bound over with no right
     * @throws VerbsException if registering them failed
     */
    RcDevice.Memory parking() throws VerbsException {
        if (parking == null) {
            NativeCopy copy = nativeCopy(64, device::registerForWindows);
            parking = copy.registered();
            parkingArena = copy.arena();
        }
        return parking;
    }

    /** Counts bytes a connection copied between the transport's buffers and its message slots. */
    void copied(long bytes) {
        bytesCopied += bytes;
    }

    /** Counts a Send with Invalidate that invalidated one of the fabric's windows. */
    void invalidatedRemotely() {
        remoteInvalidations++;
    }

    /** Counts a local invalidate posted for a window. */
    void invalidatingLocally() {
        localInvalidations++;
    }

    /**
     * Deregisters what the transport left registered (nobody reads it: nothing is copied back), then
     * the pools and the parking memory. Once no copy is made any more.
     */
    void close() throws VerbsException {
        for (Registration registration : new ArrayList<>(regions.keySet())) {
            deregister(registration, 0, null);
        }
        pool.close();
        windowPool.close();
        if (parking != null) {
            device.deregister(parking);
            parkingArena.close();
        }
    }

    int registrations() {
        return registrations;
    }

    long perCallRegistrations() {
        return perCallRegistrations;
    }

    long windowsBound() {
        return windowsBound;
    }

    long remoteInvalidations() {
        return remoteInvalidations;
    }

    long localInvalidations() {
        return localInvalidations;
    }

    /** @return every byte of payload the fabric copied: chunks through copies, messages through slots */
    long bytesCopied() {
        return bytesCopied;
    }

    /** @return the chunk pool, no peer reaching its blocks */
    ChunkPool pool() {
        return pool;
    }

    /** @return the pool whose blocks peers reach through windows */
    ChunkPool windowPool() {
        return windowPool;
    }

    private static boolean remote(Set<MemoryAccess> access) {
        return access.contains(MemoryAccess.REMOTE_READ) || access.contains(MemoryAccess.REMOTE_WRITE);
    }

    /** How native memory is registered. */
    @FunctionalInterface
    private interface Registrar {
        RcDevice.Memory register(MemorySegment memory) throws VerbsException;
    }

    /**
     * Native memory registered on its own.
     *
     * @param arena      owns the memory; closing it frees the memory
     * @param memory     the bytes
     * @param registered their registration
     */
    private record NativeCopy(Arena arena, MemorySegment memory, RcDevice.Memory registered) {
    }

    /** @return {@code length} bytes of new native memory, registered; freed again if registering fails */
    private static NativeCopy nativeCopy(long length, Registrar registrar) throws VerbsException {
        Arena arena = Arena.ofShared();
        MemorySegment memory = arena.allocate(Math.max(1, length), 64).asSlice(0, length);
        try {
            return new NativeCopy(arena, memory, registrar.register(memory));
        } catch (VerbsException | RuntimeException e) {
            arena.close();
            throw e;
        }
    }
}
