package org.rpcrdma4j.efa.device.udp;

import java.util.concurrent.atomic.AtomicLongArray;

/** One number per {@link UdpCounter}: written by the I/O thread, read by any. */
final class Counters {

    private final AtomicLongArray values = new AtomicLongArray(UdpCounter.values().length);

    /** @param counter the counter to add one to */
    void add(UdpCounter counter) {
        values.incrementAndGet(counter.ordinal());
    }

    /**
     * @param counter the counter
     * @param amount what to add to it
     */
    void add(UdpCounter counter, long amount) {
        values.addAndGet(counter.ordinal(), amount);
    }

    /** @param counter a counter @return its value */
    long get(UdpCounter counter) {
        return values.get(counter.ordinal());
    }
}
