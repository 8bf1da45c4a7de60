package org.rpcrdma4j.efa.endpoint;

import org.rpcrdma4j.efa.EndpointCounter;

/** The endpoint's event counters, one slot per {@link EndpointCounter}. Owned by the progress thread. */
final class Counters {

    private final long[] values = new long[EndpointCounter.values().length];

    void increment(EndpointCounter counter) {
        values[counter.ordinal()]++;
    }

    long get(EndpointCounter counter) {
        return values[counter.ordinal()];
    }
}
