package org.rpcrdma4j.efa.endpoint;

import java.util.concurrent.atomic.AtomicLongArray;
import org.rpcrdma4j.efa.EndpointCounter;

/**
 * The endpoint's event counters, one slot per {@link EndpointCounter}. Only the progress thread
 * counts, so a volatile store of the next value does without an atomic increment; any thread reads.
 */
final class Counters {

    private final AtomicLongArray values = new AtomicLongArray(EndpointCounter.values().length);

    void increment(EndpointCounter counter) {
        add(counter, 1);
    }

    void add(EndpointCounter counter, long n) {
        final int slot = counter.ordinal();
        values.set(slot, values.get(slot) + n);
    }

    long get(EndpointCounter counter) {
        return values.get(counter.ordinal());
    }
}
