package org.rpcrdma4j.efa.device;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The memory registrations of a device that serves RDMA in software (the simulated and the UDP
 * device): keys in turn, addresses on page boundaries with a gap between regions, a bound on how many
 * exist, and the key, bounds and rights checks of a local or a peer's range. One thread registers and
 * deregisters; lookups may come from another (a device's I/O thread serving a peer's RDMA).
 */
public final class MemoryRegistrations {

    /**
     * Where registrations start. Above 2^63 on purpose, so that any signed comparison of addresses in
     * a caller goes wrong in tests rather than in production (RPC-over-RDMA offsets above 2^63 are
     * common: Linux puts the XID in their upper half).
     */
    public static final long FIRST_REGION_ADDRESS = 0x8000_0000_0000_0000L;

    /** Registrations start on page boundaries, as pinned memory does. */
    public static final long PAGE_SIZE = 4096;

    /** A registration and the bytes it covers, a slice that is never moved. */
    private record Entry(MemoryRegion region, ByteBuffer memory) {
    }

    private final Map<Integer, Entry> byKey = new ConcurrentHashMap<>();
    private final int limit;
    private int nextKey;
    private long nextAddress = FIRST_REGION_ADDRESS;

    /**
     * @param firstKey the first key handed out
     * @param limit    the most registrations at once
     */
    public MemoryRegistrations(int firstKey, int limit) {
        this.nextKey = firstKey;
        this.limit = limit;
    }

    /**
     * Registers the bytes from the buffer's position to its limit ({@link Device#registerMemory}).
     *
     * @return the region, or null if {@code limit} registrations exist
     * @throws IllegalArgumentException if write access is asked of a read-only buffer
     */
    public MemoryRegion register(ByteBuffer memory, Set<Access> access) {
        Objects.requireNonNull(memory, "memory");
        Objects.requireNonNull(access, "access");
        if (memory.isReadOnly() && (access.contains(Access.LOCAL_WRITE) || access.contains(Access.REMOTE_WRITE))) {
            throw new IllegalArgumentException("write access asked of a read-only buffer: " + access);
        }
        if (byKey.size() >= limit) {
            return null;
        }
        final MemoryRegion region = new MemoryRegion(nextKey++, nextAddress, memory.remaining(), access);
        // Move past the region to a page boundary with a gap, so no two registrations touch.
        nextAddress += (region.length() / PAGE_SIZE + 1) * PAGE_SIZE;
        byKey.put(region.key(), new Entry(region, memory.slice()));
        return region;
    }

    /**
     * @return whether the region was registered here and now is not
     */
    public boolean deregister(MemoryRegion region) {
        Objects.requireNonNull(region, "region");
        final Entry entry = byKey.get(region.key());
        if (entry == null || !entry.region().equals(region)) {
            return false;
        }
        byKey.remove(region.key());
        return true;
    }

    /**
     * @param region the initiator's region
     * @param offset where its bytes start in it
     * @param length how many
     * @param needed the right the operation needs of it, or null for none
     * @return those bytes, or null if the region is not registered here, lacks the right, or does not
     *     hold the range
     */
    public ByteBuffer localRange(MemoryRegion region, long offset, long length, Access needed) {
        final Entry entry = byKey.get(region.key());
        if (entry == null || !entry.region().equals(region) || (needed != null && !region.access().contains(needed))
                || offset > region.length() || !region.contains(region.address() + offset, length)) {
            return null;
        }
        return entry.memory().slice(Math.toIntExact(offset), Math.toIntExact(length));
    }

    /**
     * @return the registered bytes a peer names, or null if key, bounds or rights refuse them
     */
    public ByteBuffer remoteRange(int key, long address, long length, Access needed) {
        final Entry entry = byKey.get(key);
        if (entry == null || !entry.region().access().contains(needed) || !entry.region().contains(address, length)) {
            return null;
        }
        final long offset = address - entry.region().address();
        return entry.memory().slice(Math.toIntExact(offset), Math.toIntExact(length));
    }

    /** @return how many registrations exist */
    public int size() {
        return byKey.size();
    }

    /** @return the regions that were registered, all of them gone now */
    public List<MemoryRegion> clear() {
        final List<MemoryRegion> gone = new ArrayList<>();
        byKey.values().forEach(entry -> gone.add(entry.region()));
        byKey.clear();
        return gone;
    }
}
