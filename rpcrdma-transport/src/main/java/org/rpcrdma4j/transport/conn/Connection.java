package org.rpcrdma4j.transport.conn;

import java.net.InetSocketAddress;
import java.util.Objects;
import org.rpcrdma4j.transport.FabricAddress;

/**
 * One RPC-over-RDMA connection: a pair of fabric addresses plus state. Its fields are written on the
 * progress thread and read from any thread.
 *
 * <p>Each connection shows oncrpc4j a pair of socket addresses unique per connection: the identity
 * of each end (the EFA GID, IPv6-shaped) with, as port, the responder's connection number on the
 * requester's side and the endpoint's number (the QPN) on the responder's side.
 */
public final class Connection {

    /** The life of a connection. */
    public enum State {
        /** CONNECT sent, ACCEPT not yet received. */
        CONNECTING,
        /** Both sides know the thresholds; calls flow. */
        CONNECTED,
        /** Closed by either side; never reopened. */
        CLOSED
    }

    private final long peer;
    private final FabricAddress localAddress;
    private final FabricAddress peerAddress;
    private volatile State state = State.CONNECTING;
    private volatile InlineThresholds thresholds;
    private volatile int number;
    private volatile String closeReason;

    /**
     * @param peer         the fabric's handle of the peer
     * @param localAddress this side's address
     * @param peerAddress  the peer's address
     */
    public Connection(long peer, FabricAddress localAddress, FabricAddress peerAddress) {
        this.peer = peer;
        this.localAddress = Objects.requireNonNull(localAddress, "localAddress");
        this.peerAddress = Objects.requireNonNull(peerAddress, "peerAddress");
    }

    /** @return the fabric's handle of the peer */
    public long peer() {
        return peer;
    }

    /** @return the state */
    public State state() {
        return state;
    }

    /** @return the thresholds, or {@code null} before the connection is up */
    public InlineThresholds thresholds() {
        return thresholds;
    }

    /** @return the responder's number for this connection, 0 before it is up */
    public int number() {
        return number;
    }

    /** @return why the connection closed, or {@code null} while it is open */
    public String closeReason() {
        return closeReason;
    }

    /**
     * Marks the connection up once the private data is exchanged. Progress thread only.
     *
     * @param inline the thresholds from the exchange
     * @param connectionNumber the responder's number for the connection
     */
    void up(InlineThresholds inline, int connectionNumber) {
        this.thresholds = inline;
        this.number = connectionNumber;
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
        return true;
    }

    /**
     * @param requesterSide true on the requester's side
     * @return this side's socket address
     */
    public InetSocketAddress localSocketAddress(boolean requesterSide) {
        return new InetSocketAddress(localAddress.inetAddress(), port(requesterSide ? number : localAddress.number()));
    }

    /**
     * @param requesterSide true on the requester's side
     * @return the peer's socket address
     */
    public InetSocketAddress remoteSocketAddress(boolean requesterSide) {
        return new InetSocketAddress(peerAddress.inetAddress(), port(requesterSide ? peerAddress.number() : number));
    }

    private static int port(int number) {
        return number & 0xFFFF;
    }

    @Override
    public String toString() {
        return "Connection[" + peerAddress + " #" + number + " " + state + "]";
    }
}
