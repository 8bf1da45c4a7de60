package org.rpcrdma4j.fabric;

import java.util.Arrays;
import java.util.function.Supplier;

/**
 * Records of work in flight, found again by a token that travels with the work and comes back with its
 * completion, as the kernel's {@code ib_cqe} does for a {@code wr_id}: the token is a record's index
 * and a generation. Records are reused, so that starting work allocates nothing once the table has
 * grown to the depth in flight, and a stale or repeated token (a completion made up for work that was
 * flushed as well) finds no live record instead of another piece of work's. Not thread-safe: one
 * owner, such as a connection on its progress thread.
 *
 * @param <R> the record type, mutable, filled by the owner after {@link #take}
 */
public final class WorkTokens<R> {

    private final Supplier<R> newRecord;
    private Object[] records = new Object[16];
    private int[] generations = new int[16];
    private boolean[] live = new boolean[16];
    private int[] free = new int[16];
    private int freeCount;
    private int used;
    private int liveCount;

    /** @param newRecord makes a record when the table grows */
    public WorkTokens(Supplier<R> newRecord) {
        this.newRecord = newRecord;
    }

    /**
     * Takes a free record for new work.
     *
     * @return the work's token; its record ({@link #record}) holds what the previous work left there
     */
    public long take() {
        int index;
        if (freeCount > 0) {
            index = free[--freeCount];
        } else {
            if (used == records.length) {
                int size = used * 2;
                records = Arrays.copyOf(records, size);
                generations = Arrays.copyOf(generations, size);
                live = Arrays.copyOf(live, size);
                free = Arrays.copyOf(free, size);
            }
            index = used++;
            records[index] = newRecord.get();
        }
        generations[index]++;
        live[index] = true;
        liveCount++;
        return token(index);
    }

    /**
     * @param token a live work's token
     * @return its record
     * @throws IllegalArgumentException if the token names no live work
     */
    public R record(long token) {
        int index = (int) token;
        if (!isLive(token)) {
            throw new IllegalArgumentException("no live work has token 0x" + Long.toHexString(token));
        }
        return record(index);
    }

    /**
     * Ends a piece of work: its record is free for the next {@link #take}, but keeps its contents until
     * then.
     *
     * @param token the token that came back
     * @return the work's record, or null if the token names no live work
     */
    public R remove(long token) {
        if (!isLive(token)) {
            return null;
        }
        int index = (int) token;
        live[index] = false;
        free[freeCount++] = index;
        liveCount--;
        return record(index);
    }

    /** @return whether no work is in flight */
    public boolean isEmpty() {
        return liveCount == 0;
    }

    /** @return the tokens of the work in flight now */
    public long[] tokens() {
        long[] tokens = new long[liveCount];
        int n = 0;
        for (int i = 0; i < used; i++) {
            if (live[i]) {
                tokens[n++] = token(i);
            }
        }
        return tokens;
    }

    private boolean isLive(long token) {
        int index = (int) token;
        return index >= 0 && index < used && live[index] && generations[index] == (int) (token >>> 32);
    }

    private long token(int index) {
        return (long) generations[index] << 32 | index;
    }

    @SuppressWarnings("unchecked")
    private R record(int index) {
        return (R) records[index];
    }
}
