package org.rpcrdma4j.efa.endpoint;

import java.util.Random;

/**
 * Randomized exponential backoff from one peer after repeated receiver-not-ready
 * (libfabric's EFA send/receive completion paths document, "Dealing with receiver not ready errors"): the first wait is
 * drawn uniformly from [min, maxInitial], every further repeated RNR doubles it up to the cap, and
 * a successful send completion to the peer resets it. Time is a parameter, the random
 * source is the endpoint's seeded one.
 */
final class Backoff {

    private final long minNs;
    private final long maxInitialNs;
    private final long capNs;
    private final Random random;
    private long waitNs;
    private long untilNs;
    private boolean active;

    Backoff(long minNs, long maxInitialNs, long capNs, Random random) {
        this.minNs = minNs;
        this.maxInitialNs = maxInitialNs;
        this.capNs = capNs;
        this.random = random;
    }

    /**
     * A packet to the peer came back RNR again after its retransmission: stop sending for a while.
     * A peer already backing off keeps its wait: the other packets it refuses in the same burst
     * do not double it again.
     */
    void onRepeatedRnr(long nowNs) {
        if (isActive(nowNs)) {
            return;
        }
        waitNs = waitNs == 0 ? minNs + (long) (random.nextDouble() * (maxInitialNs - minNs)) : Math.min(capNs, 2 * waitNs);
        untilNs = nowNs + waitNs;
        active = true;
    }

    /** A send to the peer completed: it is receiving again. */
    void reset() {
        waitNs = 0;
        active = false;
    }

    /** @return whether sends to the peer must wait at {@code nowNs}; leaves backoff once the wait is over */
    boolean isActive(long nowNs) {
        if (active && nowNs >= untilNs) {
            active = false;
        }
        return active;
    }

    /** @return the current wait, 0 when not backing off since the last reset */
    long waitNs() {
        return waitNs;
    }
}
