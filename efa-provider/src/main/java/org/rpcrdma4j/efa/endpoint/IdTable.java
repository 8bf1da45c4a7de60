package org.rpcrdma4j.efa.endpoint;

/**
 * A bounded table of operations by id: the {@code send_id}s and {@code recv_id}s the long-CTS
 * packets carry (EFA RDM protocol v4 §3.2) and the work-request ids of RDMA operations. Ids
 * are reused after release, as the protocol allows. A full table is back-pressure: the API answers
 * {@code false} (EAGAIN) instead of growing. Only the progress thread changes it; its
 * {@link #size()} may be read from any thread.
 *
 * @param <T> the operation type
 */
final class IdTable<T> {

    private final Object[] entries;
    private final int[] free;
    /** Volatile for {@link #size()} on other threads; only the progress thread writes it. */
    private volatile int freeCount;

    IdTable(int size) {
        entries = new Object[size];
        free = new int[size];
        for (int i = 0; i < size; i++) {
            free[i] = size - 1 - i;
        }
        freeCount = size;
    }

    /** @return the id given to {@code entry}, or -1 if the table is full */
    int add(T entry) {
        if (freeCount == 0) {
            return -1;
        }
        final int id = free[--freeCount];
        entries[id] = entry;
        return id;
    }

    /** @return the entry under an id taken from the wire, or null if there is none */
    @SuppressWarnings("unchecked")
    T get(long id) {
        return id >= 0 && id < entries.length ? (T) entries[(int) id] : null;
    }

    /** @return one more than the largest id, for walking every entry with {@link #get(long)} */
    int capacity() {
        return entries.length;
    }

    int size() {
        return entries.length - freeCount;
    }

    void replace(int id, T entry) {
        entries[id] = entry;
    }

    void remove(int id) {
        entries[id] = null;
        free[freeCount++] = id;
    }
}
