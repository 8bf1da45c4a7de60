package org.rpcrdma4j.transport.conn;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.transport.RdmaTransportException;
import org.rpcrdma4j.xdr.Proc;
import org.rpcrdma4j.xdr.RpcRdmaHeaderFlyweight;

/**
 * The responder's side as the requester of backward calls (RFC 8167) on each of its connections,
 * apart from its forward path as Linux's svcrdma backchannel is: inline only (§4.4), each an
 * RDMA_MSG without chunks carrying the backward credits asked for (§4.5); at most as many outstanding
 * per connection as the requester granted in its last backward reply, one before the first (§4.1,
 * {@link BackwardCalls}); the others wait in order. An answer, a backward reply or an RDMA_ERROR for
 * an outstanding backward call, goes to the {@link BackwardReplyHandler}. Closing a connection fails
 * its backward calls.
 *
 * <p>Progress thread only, except {@link #call} and the counters, which are thread-safe.
 */
final class BackwardRequester {

    private final Fabric fabric;
    private final int credits;
    private final BackwardReplyHandler handler;
    private final Map<Connection, BackwardCalls> calls = new HashMap<>();
    private volatile int pending;
    private volatile int maxOutstanding;

    /**
     * @param fabric  the fabric the connections are on
     * @param credits the backward credits to ask for, at least 1
     * @param handler gets the answers, on the progress thread
     */
    BackwardRequester(Fabric fabric, int credits, BackwardReplyHandler handler) {
        this.fabric = fabric;
        this.credits = credits;
        this.handler = handler;
    }

    /**
     * Starts keeping a new connection's backward calls. Progress thread.
     *
     * @param connection the connection
     */
    void opened(Connection connection) {
        calls.put(connection, new BackwardCalls(credits));
    }

    /**
     * Sends a backward call, now or when a backward credit frees. Thread-safe.
     *
     * @param connection the connection
     * @param xid        the call's XID
     * @param rpcMessage the whole RPC call message, owned by this side from now on
     * @throws RdmaTransportException CALL if it is over the inline threshold, CONNECTION if the
     *                                connection is not up
     */
    void call(Connection connection, int xid, byte[] rpcMessage) throws RdmaTransportException {
        String what = "backward call xid 0x" + Integer.toHexString(xid);
        if (connection.state() != Connection.State.CONNECTED) {
            throw connection.notUp(what);
        }
        ByteBuffer message = InlineMessage.msg(xid, credits, rpcMessage);
        int threshold = connection.thresholds().send();
        if (message.capacity() > threshold) {
            throw new RdmaTransportException(RdmaTransportException.Scope.CALL, what + " of " + rpcMessage.length
                    + " bytes makes a " + message.capacity() + "-byte message over the " + threshold
                    + "-byte inline threshold; backward messages are inline only (RFC 8167)");
        }
        boolean queued = Connection.execute(fabric, () -> {
            BackwardCalls queue = calls.get(connection);
            if (queue == null || connection.state() != Connection.State.CONNECTED) {
                handler.onBackwardFailed(connection, xid, connection.notUp(what));
                return;
            }
            queue.add(new BackwardCalls.Call(xid, message));
            pump(connection, queue);
        });
        if (!queued) {
            throw connection.notUp(what);
        }
    }

    /**
     * Takes a backward reply, or an RDMA_ERROR by which the requester refused a backward call (RFC
     * 8166 §4.5). Progress thread.
     *
     * @param connection where it came
     * @param header     its header, wrapped
     * @param payload    copies its RPC message out of the receive buffer
     * @return false if no backward call of that XID is outstanding: the message is not for this side
     */
    boolean onAnswer(Connection connection, RpcRdmaHeaderFlyweight header, Supplier<byte[]> payload) {
        BackwardCalls queue = calls.get(connection);
        int xid = header.xid();
        if (queue == null || !queue.answered(xid, header.credits())) {
            return false;
        }
        // Counted before the answer is handed over: whoever gets it finds the call no longer pending.
        count();
        if (header.proc() == Proc.RDMA_ERROR) {
            handler.onBackwardFailed(connection, xid, new RdmaTransportException(RdmaTransportException.Scope.CALL,
                    "backward call xid 0x" + Integer.toHexString(xid) + ": the requester answered RDMA_ERROR "
                            + header.errorCode()));
        } else {
            handler.onBackwardReply(connection, xid, payload.get());
        }
        pump(connection, queue);
        return true;
    }

    /**
     * Fails every backward call of a connection that closed, and forgets the connection. Progress thread.
     *
     * @param connection the connection, closed
     */
    void closed(Connection connection) {
        BackwardCalls queue = calls.remove(connection);
        if (queue == null) {
            return;
        }
        List<Integer> failed = queue.clear();
        count();
        for (int xid : failed) {
            handler.onBackwardFailed(connection, xid, connection.notUp("backward call xid 0x" + Integer.toHexString(xid)));
        }
    }

    /** @return backward calls sent and not yet answered or waiting for a backward credit; 0 when idle */
    int pending() {
        return pending;
    }

    /** @return the most backward calls ever outstanding at once on one connection */
    int maxOutstanding() {
        return maxOutstanding;
    }

    /** Sends the backward calls the credits allow. */
    private void pump(Connection connection, BackwardCalls queue) {
        while (connection.state() == Connection.State.CONNECTED) {
            BackwardCalls.Call call = queue.next();
            if (call == null) {
                break;
            }
            connection.send(call.message(), error -> {
                if (error != null && queue.unanswered(call.xid())) {
                    count();
                    handler.onBackwardFailed(connection, call.xid(), error);
                    pump(connection, queue);
                }
            });
        }
        count();
    }

    private void count() {
        int waiting = 0;
        int outstanding = maxOutstanding;
        for (BackwardCalls queue : calls.values()) {
            waiting += queue.pending();
            outstanding = Math.max(outstanding, queue.outstanding());
        }
        pending = waiting;
        maxOutstanding = outstanding;
    }
}
