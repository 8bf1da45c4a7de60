package org.rpcrdma4j.efa.device.verbs;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.LongConsumer;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.verbs.VerbsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A verbs-backed device's ({@link VerbsDevice}, {@link EfaSrdDevice}) memory registrations with its NIC,
 * by the key each region is named by.
 *
 * <p>The NIC pins what it registers, which a heap buffer cannot be: a heap buffer is registered through
 * a direct copy of it, filled at registration and copied back at deregistration if it may be written
 * (as the RC fabric's pools do), at most {@code maxCopiedBytes} at once. A region is
 * named by its rkey, which peers use; memory no peer may reach has rkey 0 on rxe, so its lkey names it
 * instead, and a key the NIC gives a second time (which the SPI forbids) is refused. Not thread-safe:
 * the device's progress thread.
 */
final class NicRegistrations {

    private static final Logger LOG = LoggerFactory.getLogger(NicRegistrations.class);

    /**
     * A registration and the bytes it covers; for heap memory the caller's buffer ({@code heap}) and the
     * direct copy of it registered in its place ({@code pinned}), else both null.
     */
    record Registered(MemoryRegion region, NicMemory.Registration nic, ByteBuffer heap, ByteBuffer pinned) {
    }

    private final NicMemory nic;
    private final int maxRegistrations;
    private final long maxCopiedBytes;
    private final LongConsumer copied;
    private final Map<Integer, Registered> byKey = new HashMap<>();
    /** Bytes of heap memory registered now, through copies. */
    private long copiedBytes;

    /**
     * @param nic              the NIC to register with
     * @param maxRegistrations the most registrations at once
     * @param maxCopiedBytes   the most bytes of heap memory registered at once, through copies
     * @param copied           counts the bytes copied into and out of direct copies
     */
    NicRegistrations(NicMemory nic, int maxRegistrations, long maxCopiedBytes, LongConsumer copied) {
        this.nic = nic;
        this.maxRegistrations = maxRegistrations;
        this.maxCopiedBytes = maxCopiedBytes;
        this.copied = copied;
    }

    /**
     * @return the region, or null if a bound is reached or the NIC refuses ("no more", as the SPI says)
     * @throws IllegalArgumentException if write access is asked of a read-only buffer
     */
    MemoryRegion register(ByteBuffer buffer, Set<Access> access) {
        if (buffer.isReadOnly() && (access.contains(Access.LOCAL_WRITE) || access.contains(Access.REMOTE_WRITE))) {
            throw new IllegalArgumentException("write access asked of a read-only buffer: " + access);
        }
        if (byKey.size() >= maxRegistrations) {
            return null;
        }
        final ByteBuffer heap = buffer.isDirect() ? null : buffer.slice();
        if (heap != null && copiedBytes + heap.remaining() > maxCopiedBytes) {
            return null;
        }
        final ByteBuffer pinned = heap == null ? buffer : ByteBuffer.allocateDirect(heap.remaining()).put(0, heap,
                0, heap.remaining());
        final boolean remote = access.contains(Access.REMOTE_READ) || access.contains(Access.REMOTE_WRITE);
        final NicMemory.Registration registration;
        try {
            registration = nic.register(pinned, access.contains(Access.REMOTE_READ), access.contains(Access.REMOTE_WRITE));
        } catch (VerbsException e) {
            LOG.debug("registration refused", e);
            return null;
        }
        if (registration == null) {
            return null;
        }
        final int key = remote ? registration.rkey() : registration.lkey();
        if (byKey.containsKey(key)) {
            LOG.warn("the NIC gave key {} to a second registration; refused", key);
            deregister(registration);
            return null;
        }
        if (heap != null) {
            copiedBytes += heap.remaining();
            copied.accept(heap.remaining());
        }
        final MemoryRegion region = new MemoryRegion(key, registration.address(), registration.length(), access);
        byKey.put(key, new Registered(region, registration, heap, heap == null ? null : pinned));
        return region;
    }

    /**
     * Deregisters a region, copying a heap buffer's bytes back first if it may be written.
     *
     * @throws IllegalArgumentException if the region is not registered here
     */
    void deregister(MemoryRegion region) {
        final Registered registered = find(region);
        if (registered == null) {
            throw new IllegalArgumentException(region + " is not registered with this device");
        }
        byKey.remove(region.key());
        deregister(registered.nic());
        final ByteBuffer heap = registered.heap();
        if (heap != null) {
            copiedBytes -= heap.remaining();
            if (region.access().contains(Access.LOCAL_WRITE) || region.access().contains(Access.REMOTE_WRITE)) {
                heap.put(0, registered.pinned(), 0, heap.remaining());
                copied.accept(heap.remaining());
            }
        }
    }

    /** @return the registration of exactly this region, or null */
    Registered find(MemoryRegion region) {
        final Registered registered = byKey.get(region.key());
        return registered != null && registered.region().equals(region) ? registered : null;
    }

    /** Deregisters everything, copying nothing back: the device is closing. */
    void close() {
        for (Registered registered : byKey.values()) {
            deregister(registered.nic());
        }
        byKey.clear();
    }

    /** Deregisters from the NIC, logging a failure: the memory is no longer used either way. */
    void deregister(NicMemory.Registration registration) {
        try {
            nic.deregister(registration);
        } catch (VerbsException e) {
            LOG.warn("ibv_dereg_mr failed", e);
        }
    }
}
