package org.rpcrdma4j.fabric.rc;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.rpcrdma4j.fabric.MemoryAccess;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * Registered native memory for chunk data. Blocks come in size classes, powers of two from
 * {@link #MIN_BLOCK} to {@link #MAX_BLOCK}; a class that runs out gets a slab of {@link #SLAB} bytes
 * registered once ({@code ibv_reg_mr}) and cut into its blocks. Slabs stay registered until the
 * fabric closes, and the pool never holds more than its bound: so the hot path makes no
 * registration, and what it pins is bounded. A block goes back to its class when its registration is
 * released.
 *
 * <p>A registration larger than {@link #MAX_BLOCK} that no peer may touch is made of several blocks
 * ({@link #takeBlocks}): whole {@code MAX_BLOCK} ones, a slab each, and a last one of the class that
 * fits the rest, so their bytes are not contiguous and their lkeys differ; the fabric posts RDMA on
 * them with a scatter/gather list ({@link LocalRegion#gather}). They are taken all or none, within
 * the bound.
 *
 * <p>A fabric has two pools. One for registrations no peer may touch (a responder's RDMA Read targets
 * and RDMA Write sources): its slabs have local write only, so their keys never leave the host. One
 * for memory a peer reads or writes (a requester's chunks): its slabs have local write and the right
 * to bind memory windows, and no remote right; a peer reaches a block only through a type 2 window
 * bound over it for one call, whose key stops working when the call ends. Progress thread only,
 * but for {@link #bytesInUse()} and {@link #registeredBytes()}, which any thread may read.
 */
final class ChunkPool implements AutoCloseable {

    /** The smallest block. */
    static final int MIN_BLOCK = 4096;
    /** The largest block: a Linux client's 1 MiB rsize or wsize, four 256 KiB ones. */
    static final int MAX_BLOCK = 1 << 20;
    /** Bytes registered at once for a class that runs out. */
    static final int SLAB = 1 << 20;
    private static final int CLASSES = Integer.numberOfTrailingZeros(MAX_BLOCK / MIN_BLOCK) + 1;

    /**
     * A block taken from the pool.
     *
     * @param memory   its bytes, of the class's size
     * @param slab     the registration it lies in
     * @param sizeClass its class
     */
    record Block(MemorySegment memory, RcDevice.Memory slab, int sizeClass) {
    }

    private final RcDevice device;
    private final long maxBytes;
    private final boolean forWindows;
    private final Arena arena = Arena.ofShared();
    private final List<ArrayDeque<Block>> free = new ArrayList<>(CLASSES);
    private final List<RcDevice.Memory> slabs = new ArrayList<>();
    /** Volatile for the fabric's gauges on other threads; only the progress thread writes them. */
    private volatile long registeredBytes;
    private volatile long bytesInUse;

    /**
     * A pool for registrations no peer may touch.
     *
     * @param device   where slabs are registered
     * @param maxBytes the most bytes it registers in all; 0 for no pool
     */
    ChunkPool(RcDevice device, long maxBytes) {
        this(device, maxBytes, false);
    }

    /**
     * @param device   where slabs are registered
     * @param maxBytes the most bytes it registers in all; 0 for no pool
     * @param forWindows whether its slabs are for memory windows ({@link RcDevice#registerForWindows})
     *                   rather than local use only
     */
    ChunkPool(RcDevice device, long maxBytes, boolean forWindows) {
        this.device = device;
        this.maxBytes = maxBytes;
        this.forWindows = forWindows;
        for (int i = 0; i < CLASSES; i++) {
            free.add(new ArrayDeque<>());
        }
    }

    /**
     * @param length bytes needed
     * @return a block of at least {@code length} bytes, or null if it is larger than
     *     {@link #MAX_BLOCK}, or its class is empty and a new slab would exceed the bound
     * @throws VerbsException if registering a slab failed
     */
    Block take(long length) throws VerbsException {
        if (length > MAX_BLOCK) {
            return null;
        }
        int sizeClass = sizeClass(length);
        ArrayDeque<Block> blocks = free.get(sizeClass);
        if (blocks.isEmpty() && !grow(sizeClass)) {
            return null;
        }
        Block block = blocks.poll();
        bytesInUse += block.memory().byteSize();
        return block;
    }

    /**
     * @param length bytes needed, any number
     * @return blocks that hold {@code length} bytes between them, in order: as many of
     *     {@link #MAX_BLOCK} as the length fills, then one of the class that fits what is left, if
     *     anything is (so a single block up to {@code MAX_BLOCK}); or null, none taken, if the bound
     *     leaves no room for them all
     * @throws VerbsException if registering a slab failed; none is taken then
     */
    List<Block> takeBlocks(long length) throws VerbsException {
        List<Block> blocks = new ArrayList<>((int) (length / MAX_BLOCK) + 1);
        long left = length;
        try {
            do {
                Block block = take(Math.min(left, MAX_BLOCK));
                if (block == null) {
                    blocks.forEach(this::give);
                    return null;
                }
                blocks.add(block);
                left -= Math.min(left, MAX_BLOCK);
            } while (left > 0);
        } catch (VerbsException | RuntimeException e) {
            blocks.forEach(this::give);
            throw e;
        }
        return blocks;
    }

    /** Returns a block taken before; its bytes are left as they are. */
    void give(Block block) {
        bytesInUse -= block.memory().byteSize();
        free.get(block.sizeClass()).add(block);
    }

    /** @return bytes of the blocks taken and not yet given back */
    long bytesInUse() {
        return bytesInUse;
    }

    /** @return bytes registered for the pool now: whole slabs, free or not */
    long registeredBytes() {
        return registeredBytes;
    }

    private static int sizeClass(long length) {
        long block = MIN_BLOCK;
        int sizeClass = 0;
        while (block < length) {
            block <<= 1;
            sizeClass++;
        }
        return sizeClass;
    }

    private boolean grow(int sizeClass) throws VerbsException {
        if (registeredBytes + SLAB > maxBytes) {
            return false;
        }
        MemorySegment slab = arena.allocate(SLAB, MIN_BLOCK);
        RcDevice.Memory registration = forWindows ? device.registerForWindows(slab)
                : device.register(slab, EnumSet.of(MemoryAccess.LOCAL_WRITE));
        slabs.add(registration);
        registeredBytes += SLAB;
        long blockSize = (long) MIN_BLOCK << sizeClass;
        for (long at = 0; at + blockSize <= SLAB; at += blockSize) {
            free.get(sizeClass).add(new Block(slab.asSlice(at, blockSize), registration, sizeClass));
        }
        return true;
    }

    /** Deregisters every slab and frees the memory; no block may be in use. */
    @Override
    public void close() throws VerbsException {
        try {
            for (RcDevice.Memory slab : slabs) {
                device.deregister(slab);
            }
        } finally {
            slabs.clear();
            free.forEach(ArrayDeque::clear);
            registeredBytes = 0;
            arena.close();
        }
    }
}
