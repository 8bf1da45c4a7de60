package org.rpcrdma4j.transport.conn;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.rpcrdma4j.fabric.ConnectionListener;
import org.rpcrdma4j.fabric.FabricStatus;
import org.rpcrdma4j.fabric.MessageBuffers;
import org.rpcrdma4j.xdr.DecodeLimits;
import org.rpcrdma4j.xdr.RpcRdmaDecodeException;
import org.rpcrdma4j.xdr.RpcRdmaHeaderFlyweight;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receive router of one connection, the part both roles share: each received message's transport
 * header is checked once, by the header view, and handed to the role's {@link #onMessage} (or
 * {@link #onBadHeader}); the buffer is posted again as soon as that returns, so the receive path
 * never waits for a worker. A message longer than the receive buffers breaks RFC 8166 §3.3.2 and is
 * dropped. Send and RDMA completions end their work on the connection's {@link Connection#work queue}.
 *
 * <p>Buffer ownership: a received buffer belongs to the router during {@link #onMessage}; what a role
 * keeps of it, it copies ({@link #payload}, counted), or it borrows the whole buffer ({@link #lend}, as
 * svcrdma keeps a call's receive until its reply is sent), and a new buffer is posted in its place.
 * The receive buffers come from the fabric's {@link MessageBuffers}, which they go back to once the
 * fabric returns them unused (flushed), the connection has closed, or a borrower is done.
 *
 * <p>Progress thread only.
 */
abstract class ConnectionEvents implements ConnectionListener {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionEvents.class);

    /** The view of the message being handled; valid during {@link #onMessage}. */
    final RpcRdmaHeaderFlyweight header;
    private final MessageBuffers buffers;
    private final LongAdder copied;
    private final LongAdder dropped;
    /** Set once the fabric has made the connection, before any of its events. */
    Connection connection;
    /** The size of the receive buffers posted. */
    private int receiveSize;
    /** Whether the buffer of the message being handled was lent: a new one is posted in its place. */
    private boolean lent;

    /**
     * @param limits  the bounds on counts read from the wire
     * @param buffers where the receive buffers come from: the fabric's
     * @param copied  counts the bytes copied out of receive buffers
     * @param dropped counts the messages dropped without an answer
     */
    ConnectionEvents(DecodeLimits limits, MessageBuffers buffers, LongAdder copied, LongAdder dropped) {
        this.header = new RpcRdmaHeaderFlyweight(limits);
        this.buffers = buffers;
        this.copied = copied;
        this.dropped = dropped;
    }

    /**
     * The receive buffers to post for a connection: one more than the messages the peer may have in
     * flight. The buffer of the message being handled is posted again only once it is handled, and
     * meanwhile the handling may return a credit (a reply sent on the receiving thread, a reply handed
     * to a caller who calls again), so without the spare the peer's next message could find no receive
     * posted: on RC with Linux's RNR retry count of 0 that ends the connection. (svcrdma, too, posts
     * more receives than it grants.)
     *
     * @param messages the messages the peer may send without waiting for an answer: credits and
     *                 backward credits
     * @param size     the inline receive size
     * @return new receive buffers to post for a connection
     */
    final List<ByteBuffer> receiveBuffers(int messages, int size) {
        int count = messages + 1;
        receiveSize = size;
        List<ByteBuffer> receives = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            receives.add(buffers.allocate(size));
        }
        return receives;
    }

    /**
     * Handles a message whose transport header {@link #header} has checked.
     *
     * @param buffer the received message, whose header {@link #header} views
     */
    abstract void onMessage(ByteBuffer buffer);

    /**
     * Handles a message whose transport header breaks a rule.
     *
     * @param error the rule broken, and the answer a responder owes
     */
    abstract void onBadHeader(RpcRdmaDecodeException error);

    /** Called after a message longer than the receive buffers was dropped and its buffer posted again. */
    void onOversized() {
        LOG.warn("dropped a message from {}: longer than the receive buffers", connection);
    }

    /** Called after each received buffer is posted again: room for what waited on the receive. */
    void afterReceive() {
    }

    /** Counts a message dropped without an answer. */
    final void drop() {
        dropped.increment();
    }

    /**
     * @param buffer the received message
     * @return a copy of its RPC message, the inline payload after {@link #header}
     */
    final byte[] payload(ByteBuffer buffer) {
        byte[] rpc = new byte[header.payloadLength()];
        buffer.get(header.payloadOffset(), rpc);
        copied.add(rpc.length);
        return rpc;
    }

    /**
     * Lends the buffer of the message being handled, where the fabric's buffers are recycled: the
     * borrower gives it back to the fabric's {@link MessageBuffers} when done, and a new buffer is
     * posted in its place.
     *
     * @return whether it is lent; if not, what is kept of it must be copied ({@link #payload})
     */
    final boolean lend() {
        lent = buffers.recycles();
        return lent;
    }

    @Override
    public final void onReceived(ByteBuffer buffer, int length) {
        try {
            header.wrap(buffer, buffer.position(), length);
            onMessage(buffer);
        } catch (RpcRdmaDecodeException e) {
            onBadHeader(e);
        } finally {
            if (lent) {
                lent = false;
                repost(buffers.allocate(receiveSize));
            } else {
                repost(buffer);
            }
            afterReceive();
        }
    }

    @Override
    public final void onReceiveFailed(ByteBuffer buffer, FabricStatus status) {
        if (status == FabricStatus.MESSAGE_TOO_LONG) {
            drop();
            repost(buffer);
            onOversized();
        } else {
            buffers.release(buffer);
        }
    }

    @Override
    public void onSendCompleted(long context, FabricStatus status) {
        connection.work().onCompleted(context, status);
    }

    @Override
    public final void onRdmaCompleted(long context, FabricStatus status) {
        connection.work().onCompleted(context, status);
    }

    private void repost(ByteBuffer buffer) {
        if (connection.state() == Connection.State.CLOSED) {
            buffers.release(buffer);
        } else if (!connection.repost(buffer)) {
            buffers.release(buffer);
            LOG.warn("the fabric has no room for another receive on {}; it receives with one fewer", connection);
        }
    }
}
