package org.rpcrdma4j.fabric.rc;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import org.rpcrdma4j.fabric.MemoryAccess;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * Registered native memory for one connection's messages, cut into slots of one size and registered
 * once when the connection's queue pair is made: a receive lands in a slot and is copied into the
 * transport's buffer; a message is copied into a slot and sent from it. The transport's message
 * buffers are heap buffers, which a device cannot address, and registering per message would put
 * {@code ibv_reg_mr} on the hot path.
 */
final class BounceSlots {

    private final RcDevice device;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment memory;
    private final RcDevice.Memory registration;
    private final int slotSize;
    /** The free slots' numbers, a stack in {@code free[0..freeCount)}: no boxing per post. */
    private final int[] free;
    private int freeCount;

    /**
     * @param count    slots
     * @param slotSize bytes per slot: the largest message it carries
     */
    BounceSlots(RcDevice device, int count, int slotSize) throws VerbsException {
        this.device = device;
        this.slotSize = slotSize;
        this.memory = arena.allocate((long) count * slotSize, 4096);
        try {
            this.registration = device.register(memory, EnumSet.of(MemoryAccess.LOCAL_WRITE));
        } catch (VerbsException | RuntimeException e) {
            arena.close();
            throw e;
        }
        this.free = new int[count];
        for (int i = 0; i < count; i++) {
            free[i] = count - 1 - i;
        }
        freeCount = count;
    }

    /** @return bytes per slot */
    int slotSize() {
        return slotSize;
    }

    /** @return a free slot, or -1 if all are in use */
    int take() {
        return freeCount == 0 ? -1 : free[--freeCount];
    }

    /** Returns a slot taken before. */
    void give(int slot) {
        free[freeCount++] = slot;
    }

    /** @return the native address of a slot */
    long address(int slot) {
        return registration.address() + (long) slot * slotSize;
    }

    /** @return the slot's memory */
    MemorySegment slot(int slot) {
        return memory.asSlice((long) slot * slotSize, slotSize);
    }

    /** @return the local key of every slot */
    int lkey() {
        return registration.lkey();
    }

    /** Deregisters and frees the memory; nothing may be posted from it any more. */
    void close() throws VerbsException {
        try {
            device.deregister(registration);
        } finally {
            arena.close();
        }
    }
}
