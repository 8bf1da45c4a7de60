package org.rpcrdma4j.fabric.rc;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.EnumSet;
import org.rpcrdma4j.fabric.MemoryAccess;
import org.rpcrdma4j.fabric.MessageBuffers;
import org.rpcrdma4j.verbs.VerbsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RC fabric's {@link MessageBuffers}: buffers of the fabric's slot size cut from slabs of native
 * memory, each slab registered once for local access, so that a receive lands in the transport's own
 * buffer and a Send leaves from it with no copy (xprtrdma's DMA-mapped {@code rpcrdma_regbuf}s, in
 * their place). Slabs are added as buffers are taken, up to {@link #MAX_BYTES}; past it, for a buffer
 * larger than a slot, when registering fails and once the fabric is closed, a buffer is of the heap,
 * which a connection copies through its bounce slots as before.
 */
final class RcMessageBuffers implements MessageBuffers {

    /** Buffers per slab: one registration serves a connection's receives at the default credits. */
    static final int SLAB_BUFFERS = 256;
    /** The most memory registered for messages, 64 MiB: 16,384 buffers of 4 KiB. */
    static final long MAX_BYTES = 64L << 20;
    private static final Logger LOG = LoggerFactory.getLogger(RcMessageBuffers.class);

    /** A slab: its memory and its registration. */
    private record Slab(MemorySegment memory, RcDevice.Memory registration) {

        boolean holds(long address, long length) {
            return address >= memory.address() && address + length <= memory.address() + memory.byteSize();
        }
    }

    private final RcDevice device;
    private final int bufferSize;
    private final Arena arena = Arena.ofShared();
    /** Read without the lock: replaced whole when a slab is added; kept after close to tell buffers apart. */
    private volatile Slab[] slabs = new Slab[0];
    private final ArrayDeque<ByteBuffer> free = new ArrayDeque<>();
    /** Buffers of the slabs taken and not given back, closed or not: what a leak leaves above 0. */
    private volatile long inUse;
    private volatile boolean closed;

    /**
     * @param device     the device to register with
     * @param bufferSize bytes per buffer: the fabric's slot size
     */
    RcMessageBuffers(RcDevice device, int bufferSize) {
        this.device = device;
        this.bufferSize = bufferSize;
    }

    @Override
    public synchronized ByteBuffer allocate(int size) {
        if (size > bufferSize || closed) {
            return ByteBuffer.allocate(size);
        }
        if (free.isEmpty() && !grow()) {
            return ByteBuffer.allocate(size);
        }
        inUse++;
        return free.pop().clear().limit(size);
    }

    @Override
    public boolean recycles() {
        return true;
    }

    @Override
    public void release(ByteBuffer buffer) {
        if (slabOf(MemorySegment.ofBuffer(buffer)) == null) {
            return; // of the heap
        }
        synchronized (this) {
            inUse--;
            if (!closed) {
                free.push(buffer);
            }
        }
    }

    /**
     * @param bytes the memory of a message
     * @return the local key of the slab that holds it, or -1 if it lies in none (heap memory, another
     *     fabric's) or the slabs are released (the fabric closed)
     */
    int lkey(MemorySegment bytes) {
        Slab slab = slabOf(bytes);
        return slab == null || closed ? -1 : slab.registration().lkey();
    }

    private Slab slabOf(MemorySegment bytes) {
        if (!bytes.isNative()) {
            return null;
        }
        for (Slab slab : slabs) {
            if (slab.holds(bytes.address(), bytes.byteSize())) {
                return slab;
            }
        }
        return null;
    }

    /** @return buffers of the slabs taken and not given back */
    long inUse() {
        return inUse;
    }

    /** @return bytes registered for messages now */
    long registeredBytes() {
        return closed ? 0 : (long) slabs.length * SLAB_BUFFERS * bufferSize;
    }

    /** Adds a slab, within the bound; false if it may not or registering failed. Under the lock. */
    private boolean grow() {
        long slabBytes = (long) SLAB_BUFFERS * bufferSize;
        if (registeredBytes() + slabBytes > MAX_BYTES) {
            return false;
        }
        MemorySegment memory = arena.allocate(slabBytes, 4096);
        RcDevice.Memory registration;
        try {
            registration = device.register(memory, EnumSet.of(MemoryAccess.LOCAL_WRITE));
        } catch (VerbsException e) {
            LOG.warn("registering {} bytes for message buffers failed: {}; using the heap", slabBytes, e.getMessage());
            return false;
        }
        Slab[] more = Arrays.copyOf(slabs, slabs.length + 1);
        more[slabs.length] = new Slab(memory, registration);
        slabs = more;
        for (int i = 0; i < SLAB_BUFFERS; i++) {
            free.push(memory.asSlice((long) i * bufferSize, bufferSize).asByteBuffer());
        }
        return true;
    }

    /**
     * Deregisters the slabs and frees their memory, once no queue pair can reach them any more; a
     * buffer still held fails on access from then on (its arena is closed), never reaches freed memory.
     */
    synchronized void close() {
        closed = true;
        free.clear();
        for (Slab slab : slabs) {
            try {
                device.deregister(slab.registration());
            } catch (VerbsException e) {
                LOG.warn("deregistering message buffers failed: {}", e.getMessage());
            }
        }
        arena.close();
    }
}
