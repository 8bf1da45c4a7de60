package org.rpcrdma4j.transport;

import java.time.Duration;
import java.util.Objects;

/**
 * What a client does when its connection is lost: nothing ({@link #NEVER}: every call waiting fails),
 * or connect again and send the calls still waiting once more, with their XIDs, as the Linux client
 * does ({@link #LINUX}, the default).
 *
 * <p>A client reconnects only while calls wait for the connection, as Linux's RPC client connects on
 * demand: the first attempt after a connection that was up goes at once, each later one after a delay
 * that starts at {@link #backoff} and doubles up to {@link #maxBackoff} (Linux xprtrdma:
 * {@code RPCRDMA_INIT_REEST_TO} 5 s and {@code RPCRDMA_MAX_REEST_TO} 30 s, in {@code xprt_rdma.h}, and
 * {@code xprt_rdma_close}, which zeroes the delay when the connection was up). A connection that comes
 * up resets the delay. Calls keep their own timeouts meanwhile: a caller sees an error only when the
 * server stays unreachable for longer than it is prepared to wait; a call without a timeout waits, as
 * on a Linux hard mount, until the server answers or the client is closed.
 *
 * @param reconnects whether the client reconnects at all
 * @param backoff    the delay before the second attempt after a loss, and the least delay of later ones
 * @param maxBackoff the longest delay between attempts
 */
public record ReconnectPolicy(boolean reconnects, Duration backoff, Duration maxBackoff) {

    /** Linux xprtrdma's: reconnect, at once and then after 5 s doubling up to 30 s. */
    public static final ReconnectPolicy LINUX =
            new ReconnectPolicy(true, Duration.ofSeconds(5), Duration.ofSeconds(30));
    /** Never reconnect: a lost connection fails every call waiting, and the client stays closed. */
    public static final ReconnectPolicy NEVER = new ReconnectPolicy(false, Duration.ZERO, Duration.ZERO);

    /**
     * @throws IllegalArgumentException if a delay is negative, or the first is longer than the longest
     */
    public ReconnectPolicy {
        Objects.requireNonNull(backoff, "backoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        if (backoff.isNegative() || maxBackoff.compareTo(backoff) < 0) {
            throw new IllegalArgumentException("reconnect backoff " + backoff + " must be >= 0 and <= its maximum "
                    + maxBackoff);
        }
    }

    /**
     * @param backoff    the delay before the second attempt, doubled for each later one
     * @param maxBackoff the longest delay between attempts
     * @return a policy that reconnects with this backoff
     */
    public static ReconnectPolicy withBackoff(Duration backoff, Duration maxBackoff) {
        return new ReconnectPolicy(true, backoff, maxBackoff);
    }

    /**
     * @param previousNanos the delay before the attempt just scheduled (0 for the first after a loss)
     * @return the delay before the next attempt, should this one fail
     */
    public long nextDelayNanos(long previousNanos) {
        long doubled = previousNanos > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : previousNanos * 2;
        return Math.min(Math.max(doubled, backoff.toNanos()), maxBackoff.toNanos());
    }
}
