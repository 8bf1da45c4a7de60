package org.rpcrdma4j.efa.device.udp;

/**
 * The retransmission timeout of one peer, computed as RFC 6298 §2 says: before the first
 * measurement the initial RTO; after the first, SRTT = R and RTTVAR = R/2; after each further
 * one RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R| and SRTT = 7/8 SRTT + 1/8 R; RTO = SRTT + max(G, 4 RTTVAR),
 * held between a minimum and a maximum (§2.4, §2.5). A timeout doubles it up to the maximum
 * (§5.5, "back off the timer"); the next measurement recomputes it. Measurements come only from
 * packets sent once (Karn's algorithm, §3), which the caller ensures.
 */
final class RtoEstimator {

    private final long minNs;
    private final long maxNs;
    private final long granularityNs;
    private long srttNs;
    private long rttvarNs;
    private long rtoNs;
    private boolean measured;

    /**
     * @param initialNs the RTO before any measurement
     * @param minNs the least RTO
     * @param maxNs the greatest RTO
     * @param granularityNs the clock granularity G
     */
    RtoEstimator(long initialNs, long minNs, long maxNs, long granularityNs) {
        this.minNs = minNs;
        this.maxNs = maxNs;
        this.granularityNs = granularityNs;
        this.rtoNs = clamp(initialNs);
    }

    /** @param rttNs a round trip measured on a packet sent once */
    void onMeasurement(long rttNs) {
        final long r = Math.max(0, rttNs);
        if (!measured) {
            srttNs = r;
            rttvarNs = r / 2;
            measured = true;
        } else {
            rttvarNs = (3 * rttvarNs + Math.abs(srttNs - r)) / 4;
            srttNs = (7 * srttNs + r) / 8;
        }
        rtoNs = clamp(srttNs + Math.max(granularityNs, 4 * rttvarNs));
    }

    /** Doubles the RTO after a timeout, up to the maximum. */
    void onTimeout() {
        rtoNs = clamp(rtoNs > maxNs / 2 ? maxNs : 2 * rtoNs);
    }

    /** @return the current RTO */
    long rtoNs() {
        return rtoNs;
    }

    /** @return whether a round trip was measured */
    boolean measured() {
        return measured;
    }

    /** @return the smoothed round trip, 0 before any measurement */
    long srttNs() {
        return srttNs;
    }

    /** @return the round-trip variation, 0 before any measurement */
    long rttvarNs() {
        return rttvarNs;
    }

    private long clamp(long ns) {
        return Math.min(maxNs, Math.max(minNs, ns));
    }
}
