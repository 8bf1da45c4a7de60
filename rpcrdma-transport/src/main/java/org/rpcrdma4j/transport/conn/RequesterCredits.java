package org.rpcrdma4j.transport.conn;

/**
 * A requester's view of its credits (RFC 8166 §3.3.1): it may assume one credit until the first
 * reply, asks for a configured number, and never has more calls outstanding than the responder last
 * granted. Not thread-safe: the progress thread owns it.
 */
final class RequesterCredits {

    private final int requested;
    private int limit = 1;
    private int outstanding;

    /**
     * @param requested the credits to ask for in every call, at least 1
     */
    public RequesterCredits(int requested) {
        if (requested < 1) {
            throw new IllegalArgumentException("requested credits " + requested + " < 1");
        }
        this.requested = requested;
    }

    /** @return the credit value to put in each call's header */
    public int requested() {
        return requested;
    }

    /** @return how many calls may be outstanding now */
    public int limit() {
        return limit;
    }

    /** @return how many calls are outstanding */
    public int outstanding() {
        return outstanding;
    }

    /** @return whether one more call may be sent now */
    public boolean canSend() {
        return outstanding < limit;
    }

    /**
     * Takes a credit for a call about to be sent.
     *
     * @throws IllegalStateException if no credit is free
     */
    public void onSent() {
        if (!canSend()) {
            throw new IllegalStateException("no credit: " + outstanding + " outstanding of " + limit);
        }
        outstanding++;
    }

    /** Returns the credit of a call whose send failed: the responder never saw it. */
    public void onUnanswered() {
        if (outstanding > 0) {
            outstanding--;
        }
    }

    /**
     * Returns the credit of a call that was answered (a reply or an RDMA_ERROR) and takes the
     * responder's new grant. A grant of 0 is a responder's error: like Linux xprtrdma
     * ({@code rpcrdma_update_cwnd_credits}) it counts as 1; a grant above what was requested counts
     * as what was requested.
     *
     * @param granted the credit value of the answer, u32
     */
    public void onAnswered(int granted) {
        if (outstanding > 0) {
            outstanding--;
        }
        long value = Integer.toUnsignedLong(granted);
        limit = (int) Math.max(1, Math.min(value, requested));
    }
}
