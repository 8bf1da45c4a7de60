package org.rpcrdma4j.transport.conn;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The backward calls of one connection on the responder's side, which is their requester (RFC 8167:
 * backward credits work as forward ones do, but are accounted apart): one credit until the
 * first backward reply, then the requester's grant, never more than asked for; the calls waiting for
 * a credit, in order; and the XIDs sent and not yet answered. Progress thread only.
 */
final class BackwardCalls {

    /** A backward call ready to send: its XID and its whole RDMA_MSG. */
    record Call(int xid, ByteBuffer message) {
    }

    private final RequesterCredits credits;
    private final ArrayDeque<Call> waiting = new ArrayDeque<>();
    private final Set<Integer> outstanding = new HashSet<>();

    /**
     * @param requested the backward credits to ask for, at least 1
     */
    BackwardCalls(int requested) {
        this.credits = new RequesterCredits(requested);
    }

    /** @return the credit value to put in each backward call's header */
    int requested() {
        return credits.requested();
    }

    /**
     * Queues a call until a credit is free.
     *
     * @param call the call
     */
    void add(Call call) {
        waiting.add(call);
    }

    /** @return the next call to send now, its credit taken, or {@code null} if none may go */
    Call next() {
        if (waiting.isEmpty() || !credits.canSend()) {
            return null;
        }
        Call call = waiting.poll();
        credits.onSent();
        outstanding.add(call.xid());
        return call;
    }

    /**
     * Returns the credit of an answered call and takes the new grant.
     *
     * @param xid     the XID of the answer
     * @param granted its credit value
     * @return false if no such call is outstanding: the answer is not for this side
     */
    boolean answered(int xid, int granted) {
        if (!outstanding.remove(xid)) {
            return false;
        }
        credits.onAnswered(granted);
        return true;
    }

    /**
     * Returns the credit of a call whose send failed.
     *
     * @param xid the call's XID
     * @return false if it was no longer outstanding
     */
    boolean unanswered(int xid) {
        if (!outstanding.remove(xid)) {
            return false;
        }
        credits.onUnanswered();
        return true;
    }

    /** @return the XIDs of every call outstanding or waiting, forgetting them all */
    List<Integer> clear() {
        List<Integer> xids = new ArrayList<>(outstanding);
        waiting.forEach(call -> xids.add(call.xid()));
        outstanding.clear();
        waiting.clear();
        return xids;
    }

    /** @return calls outstanding */
    int outstanding() {
        return outstanding.size();
    }

    /** @return calls outstanding or waiting */
    int pending() {
        return outstanding.size() + waiting.size();
    }
}
