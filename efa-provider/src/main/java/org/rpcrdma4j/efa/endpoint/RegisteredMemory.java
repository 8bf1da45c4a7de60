package org.rpcrdma4j.efa.endpoint;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.Device;
import org.rpcrdma4j.efa.device.MemoryRegion;

/**
 * The application's registrations as the endpoint itself sees them (libfabric's domain MR map, which
 * {@code efa_rdm_rma_verified_copy_iov} consults): the emulated RMA subprotocols move bytes in software,
 * so a target finds the bytes a peer names here, after checking key, bounds and access, and an initiator
 * finds the bytes of its own region. The endpoint's internal long-read registrations are not here: a
 * peer can reach only what the application registered.
 *
 * <p>Ownership: each entry keeps a slice of the buffer the application registered; the application owns
 * the bytes, and the endpoint reads or writes them only while an operation on them is in progress.
 */
final class RegisteredMemory {

    private record Entry(MemoryRegion region, ByteBuffer memory) {
    }

    private final Map<Integer, Entry> byKey = new HashMap<>();
    private final Device device;

    RegisteredMemory(Device device) {
        this.device = device;
    }

    /** Registers with the device and keeps the bytes; null if the device registered nothing. */
    MemoryRegion register(ByteBuffer memory, Set<Access> access) {
        final MemoryRegion region = device.registerMemory(memory, access);
        if (region != null) {
            byKey.put(region.key(), new Entry(region, memory.slice()));
        }
        return region;
    }

    void deregister(MemoryRegion region) {
        device.deregisterMemory(region);
        byKey.remove(region.key());
    }

    /**
     * The bytes a peer names, if a registration under its key holds all of them and grants the rights:
     * checked before anything is read or written.
     *
     * @param address u64, compared unsigned
     * @param length u64 from the wire; a value a long holds negative is refused
     * @return the bytes, or null if key, bounds or access refuse them
     */
    ByteBuffer remote(long key, long address, long length, Set<Access> needed) {
        final Entry entry = key >= 0 && key <= 0xffff_ffffL ? byKey.get((int) key) : null;
        if (entry == null || !entry.region().access().containsAll(needed)
                || !entry.region().contains(address, length)) {
            return null;
        }
        return entry.memory().slice((int) (address - entry.region().address()), (int) length);
    }

    /**
     * The bytes of a local region an emulated operation moves.
     *
     * @return them, or null if the region is not registered through this endpoint or does not hold them
     */
    ByteBuffer local(MemoryRegion region, long offset, long length) {
        final Entry entry = byKey.get(region.key());
        if (entry == null || !entry.region().equals(region) || offset < 0
                || !region.contains(region.address() + offset, length)) {
            return null;
        }
        return entry.memory().slice((int) offset, (int) length);
    }

    /** Forgets every registration: the device's close takes them. */
    void clear() {
        byKey.clear();
    }
}
