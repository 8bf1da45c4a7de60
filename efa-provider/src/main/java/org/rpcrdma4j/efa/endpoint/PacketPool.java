package org.rpcrdma4j.efa.endpoint;

/**
 * The endpoint's bounded set of send packet buffers. An empty pool is back-pressure: whoever needs a
 * packet stays queued and tries again at the next progress. A buffer is made the first time it is
 * needed and kept from then on, so an endpoint holds as many as it has had in use at once, not the
 * bound (1,024 of MTU size by default). Only the progress thread takes and gives back;
 * {@link #inUse()} may be read from any thread.
 */
final class PacketPool {

    private final int mtu;
    private final PacketEntry[] entries;
    /** Indices of the made entries that are free. */
    private final int[] free;
    /** Entries made so far: indices below it. */
    private int made;
    /** Volatile for {@link #inUse()} on other threads; only the progress thread writes it. */
    private volatile int freeCount;

    PacketPool(int count, int mtu) {
        this.mtu = mtu;
        entries = new PacketEntry[count];
        free = new int[count];
    }

    /** @return a cleared entry, or null if all are in use */
    PacketEntry acquire() {
        if (freeCount > 0) {
            return entries[free[--freeCount]];
        }
        if (made == entries.length) {
            return null;
        }
        PacketEntry entry = new PacketEntry(made, mtu);
        entries[made++] = entry;
        return entry;
    }

    /**
     * Takes back every entry, whatever it holds: the device that held them is gone.
     */
    void reset() {
        for (int i = 0; i < made; i++) {
            entries[i].clear();
            free[i] = made - 1 - i;
        }
        freeCount = made;
    }

    int inUse() {
        return made - freeCount;
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
        return entries.length - made + freeCount;
    }
}
