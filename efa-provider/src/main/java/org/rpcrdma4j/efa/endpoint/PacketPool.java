package org.rpcrdma4j.efa.endpoint;

/**
 * The endpoint's fixed set of send packet buffers. An empty pool is back-pressure: whoever needs a
 * packet stays queued and tries again at the next progress. Only the progress thread takes and
 * gives back; {@link #inUse()} may be read from any thread.
 */
final class PacketPool {

    private final PacketEntry[] entries;
    private final int[] free;
    /** Volatile for {@link #inUse()} on other threads; only the progress thread writes it. */
    private volatile int freeCount;

    PacketPool(int count, int mtu) {
        entries = new PacketEntry[count];
        free = new int[count];
        for (int i = 0; i < count; i++) {
            entries[i] = new PacketEntry(i, mtu);
            free[i] = count - 1 - i;
        }
        freeCount = count;
    }

    /** @return a cleared entry, or null if all are in use */
    PacketEntry acquire() {
        return freeCount == 0 ? null : entries[free[--freeCount]];
    }

    /**
     * Takes back every entry, whatever it holds: the device that held them is gone.
     */
    void reset() {
        for (int i = 0; i < entries.length; i++) {
            entries[i].clear();
            free[i] = entries.length - 1 - i;
        }
        freeCount = entries.length;
    }

    int inUse() {
        return entries.length - freeCount;
    }

    void release(PacketEntry entry) {
        entry.clear();
        free[freeCount++] = entry.index;
    }

    /** @return the entry a SEND completion names by its work-request id */
    PacketEntry get(long wrId) {
        return entries[(int) wrId];
    }

    int available() {
        return freeCount;
    }
}
