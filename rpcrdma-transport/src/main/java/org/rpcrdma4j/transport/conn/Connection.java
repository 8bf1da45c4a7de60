package org.rpcrdma4j.transport.conn;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.function.Consumer;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricConnection;
import org.rpcrdma4j.fabric.FabricStatus;
import org.rpcrdma4j.fabric.MessageBuffers;
import org.rpcrdma4j.transport.RdmaTransportException;
import org.rpcrdma4j.transport.rw.WorkQueue;
import org.rpcrdma4j.xdr.RdmaError;
import org.rpcrdma4j.xdr.RpcRdmaHeader;

/**
 * One RPC-over-RDMA connection as the transport keeps it: the fabric's connection, its work queue,
 * the inline thresholds agreed when it came up, and its state. Its state is written on the progress
 * thread and read from any thread.
 *
 * <p>Its socket addresses are the fabric connection's, the same objects for its lifetime
 * (docs/ARCHITECTURE.md, "Addresses a connection shows oncrpc4j").
 */
public final class Connection {

    /** The life of a connection. */
    public enum State {
        /** Set up by the fabric, the peer's private data not yet known. */
        CONNECTING,
        /** Both sides know the thresholds; calls flow. */
        CONNECTED,
        /** Closed by either side or lost; never reopened. */
        CLOSED
    }

    private final FabricConnection fabricConnection;
    private final WorkQueue work;
    private volatile State state = State.CONNECTING;
    private volatile InlineThresholds thresholds;
    private volatile String closeReason;

    /**
     * @param fabricConnection the fabric's connection
     * @param buffers          the fabric's message buffers, where its sent messages go back to
     */
    public Connection(FabricConnection fabricConnection, MessageBuffers buffers) {
        this.fabricConnection = Objects.requireNonNull(fabricConnection, "fabricConnection");
        this.work = new WorkQueue(fabricConnection, buffers);
    }

    /** @return the fabric's connection; progress thread only */
    FabricConnection fabricConnection() {
        return fabricConnection;
    }

    /** @return the queue of its sends and RDMA operations; progress thread only */
    WorkQueue work() {
        return work;
    }

    /** @return the state */
    public State state() {
        return state;
    }

    /** @return the thresholds, or {@code null} before the connection is up */
    public InlineThresholds thresholds() {
        return thresholds;
    }

    /** @return why the connection closed, or {@code null} while it is open */
    public String closeReason() {
        return closeReason;
    }

    /**
     * Marks the connection up once the private data is exchanged. Progress thread only.
     *
     * @param inline the thresholds from the exchange
     */
    void up(InlineThresholds inline) {
        this.thresholds = inline;
        this.state = State.CONNECTED;
    }

    /**
     * Marks the connection closed. Progress thread only.
     *
     * @param reason why, for the errors of calls that fail because of it
     * @return false if it was closed already
     */
    boolean close(String reason) {
        if (state == State.CLOSED) {
            return false;
        }
        closeReason = reason;
        state = State.CLOSED;
        work.close();
        return true;
    }

    /**
     * Sends a message on the connection's work queue. Progress thread only.
     *
     * @param message the message, owned by the connection from now on (its work queue gives it back)
     * @param done    called with {@code null} once sent, or with an error of the scope the fabric's
     *                status names; {@code null} when nobody waits for the outcome
     */
    void send(ByteBuffer message, Consumer<RdmaTransportException> done) {
        send(message, 0, done);
    }

    /**
     * Sends a message that also invalidates one of the peer's handles, unless it is 0 (Send with
     * Invalidate; a responder picks the handle as {@link org.rpcrdma4j.transport.marshal.ProvidedChunks}
     * says). Progress thread only.
     *
     * @param message    the message, owned by the connection from now on
     * @param invalidate the peer's handle to invalidate, or 0 for a plain send
     * @param done       as for {@link #send(ByteBuffer, Consumer)}
     */
    void send(ByteBuffer message, int invalidate, Consumer<RdmaTransportException> done) {
        Consumer<FabricStatus> sent = status -> {
            if (done != null) {
                done.accept(status.ok() ? null : new RdmaTransportException(status.scope(),
                        "send on " + this + " failed: " + status));
            }
        };
        if (invalidate == 0) {
            work.send(message, sent);
        } else {
            work.sendInvalidating(message, invalidate, sent);
        }
    }

    /**
     * Answers a call with RDMA_ERROR (RFC 8166 §4.5), unless the connection is not up. Progress thread only.
     *
     * @param xid     the call's XID
     * @param credits the grant to carry
     * @param error   the error
     * @return whether it was sent
     */
    boolean sendError(int xid, int credits, RdmaError error) {
        if (state != State.CONNECTED) {
            return false;
        }
        send(InlineMessage.error(RpcRdmaHeader.error(xid, RpcRdmaHeader.VERSION, credits, error)), null);
        return true;
    }

    /**
     * Posts a receive buffer again, emptied. Progress thread only.
     *
     * @param buffer the buffer whose message was handled
     * @return false if the fabric had no room for it (the connection receives with one fewer)
     */
    boolean repost(ByteBuffer buffer) {
        return fabricConnection.postReceive(buffer.clear());
    }

    /**
     * @param what what failed because of the connection's state, such as "reply to xid 0x2a"
     * @return the CONNECTION error of it: why the connection closed, or that it is not up yet
     */
    RdmaTransportException notUp(String what) {
        return new RdmaTransportException(RdmaTransportException.Scope.CONNECTION, what + " failed: " + this
                + (state == State.CLOSED ? " closed: " + closeReason : " is not up"));
    }

    /**
     * Runs a command on a fabric's progress thread, unless that has stopped. Thread-safe.
     *
     * @param fabric  the fabric
     * @param command what to run; it must not block
     * @return false if the progress thread has stopped: the command will never run
     */
    static boolean execute(Fabric fabric, Runnable command) {
        try {
            fabric.execute(command);
            return true;
        } catch (IllegalStateException e) {
            return false;
        }
    }

    /** @return this side's socket address, the same object for the connection's lifetime once it is up */
    public InetSocketAddress localSocketAddress() {
        return fabricConnection.localSocketAddress();
    }

    /** @return the peer's socket address, the same object for the connection's lifetime */
    public InetSocketAddress remoteSocketAddress() {
        return fabricConnection.remoteSocketAddress();
    }

    @Override
    public String toString() {
        return "Connection[" + fabricConnection + " " + state + "]";
    }
}
