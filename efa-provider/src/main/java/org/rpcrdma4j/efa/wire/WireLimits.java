package org.rpcrdma4j.efa.wire;

/**
 * Limits {@link PacketDecoder} applies to the counts a packet declares, on top of checking them against
 * the bytes received.
 *
 * <p>The defaults accept everything the libfabric provider sends: it never puts more than
 * {@code EFA_RDM_IOV_LIMIT} (4) entries in an {@code rma_iov} or {@code read_iov} array, and it keeps at
 * most {@code EFA_RDM_MAX_NUM_EXINFO} (4) {@code extra_info} words of a peer, so a {@code nextra_p3}
 * above 7 carries nothing it could use.
 *
 * @param maxRmaIovCount the largest {@code rma_iov_count} accepted, at least 1
 * @param maxReadIovCount the largest {@code read_iov_count} accepted, at least 1
 * @param maxNextraP3 the largest HANDSHAKE {@code nextra_p3} accepted, at least 4 (one {@code extra_info} word)
 */
public record WireLimits(int maxRmaIovCount, int maxReadIovCount, long maxNextraP3) {

    /** Default of {@link #maxRmaIovCount()}: the provider's {@code EFA_RDM_IOV_LIMIT}. */
    public static final int DEFAULT_MAX_RMA_IOV_COUNT = 4;
    /** Default of {@link #maxReadIovCount()}: the provider's {@code EFA_RDM_IOV_LIMIT}. */
    public static final int DEFAULT_MAX_READ_IOV_COUNT = 4;
    /** Default of {@link #maxNextraP3()}: 3 plus the provider's {@code EFA_RDM_MAX_NUM_EXINFO} words. */
    public static final long DEFAULT_MAX_NEXTRA_P3 = 7;

    /** The default limits. */
    public static final WireLimits DEFAULT =
            new WireLimits(DEFAULT_MAX_RMA_IOV_COUNT, DEFAULT_MAX_READ_IOV_COUNT, DEFAULT_MAX_NEXTRA_P3);

    /**
     * Checks the limits.
     *
     * @throws IllegalArgumentException if a limit is below its minimum or {@code maxNextraP3} exceeds a u32
     */
    public WireLimits {
        if (maxRmaIovCount < 1 || maxReadIovCount < 1) {
            throw new IllegalArgumentException("iov count limits must be at least 1: rma " + maxRmaIovCount
                    + ", read " + maxReadIovCount);
        }
        if (maxNextraP3 < HandshakeFlyweight.MIN_NEXTRA_P3 + 1 || maxNextraP3 > 0xffff_ffffL) {
            throw new IllegalArgumentException("maxNextraP3 must be in [4, 2^32 - 1]: " + maxNextraP3);
        }
    }

    /**
     * Returns these limits with another {@code rma_iov_count} limit.
     *
     * @param limit the largest {@code rma_iov_count} to accept
     * @return new limits
     */
    public WireLimits withMaxRmaIovCount(int limit) {
        return new WireLimits(limit, maxReadIovCount, maxNextraP3);
    }

    /**
     * Returns these limits with another {@code read_iov_count} limit.
     *
     * @param limit the largest {@code read_iov_count} to accept
     * @return new limits
     */
    public WireLimits withMaxReadIovCount(int limit) {
        return new WireLimits(maxRmaIovCount, limit, maxNextraP3);
    }

    /**
     * Returns these limits with another {@code nextra_p3} limit.
     *
     * @param limit the largest {@code nextra_p3} to accept
     * @return new limits
     */
    public WireLimits withMaxNextraP3(long limit) {
        return new WireLimits(maxRmaIovCount, maxReadIovCount, limit);
    }
}
