package org.rpcrdma4j.transport.conn;

import java.net.InetSocketAddress;
import java.util.Objects;
import org.rpcrdma4j.transport.FabricAddress;

/**
 * One RPC-over-RDMA connection: a pair of fabric addresses plus state. Its fields are written on the
 * progress thread and read from any thread.
 *
 * <h2>Socket addresses</h2>
 * Each connection shows oncrpc4j a pair of socket addresses, built once when it comes up and the
 * same objects for its lifetime, as oncrpc4j's TCP transport keeps one per channel. The IP address
 * of each end is its {@link FabricAddress#inetAddress()}. The requester's end has as port the
 * responder's connection number mapped into the dynamic port range, {@value #FIRST_PORT} and up, so
 * that connections from one peer stay apart and none ever looks privileged: like the Linux NFS/RDMA
 * client, which binds no reserved port, an RPC-over-RDMA client passes no {@code secure} export
 * check (exports used over RDMA need {@code insecure}). The responder's end has as port its
 * endpoint's number (the EFA QPN).
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

    /** The port of the requester's end of connection number 1; number n has port n + 49151. */
    public static final int FIRST_PORT = 49152;
    /** The most connection numbers: they fill the dynamic port range up to 65535. */
    public static final int MAX_NUMBER = 65536 - FIRST_PORT;

    private final long peer;
    private final FabricAddress localAddress;
    private final FabricAddress peerAddress;
    private final boolean requesterSide;
    private volatile InetSocketAddress localSocketAddress;
    private volatile InetSocketAddress remoteSocketAddress;
    private volatile State state = State.CONNECTING;
    private volatile InlineThresholds thresholds;
    private volatile int number;
    private volatile String closeReason;

    /**
     * @param peer         the fabric's handle of the peer
     * @param localAddress this side's address
     * @param peerAddress  the peer's address
     * @param requesterSide whether this side is the requester (client)
     */
    public Connection(long peer, FabricAddress localAddress, FabricAddress peerAddress, boolean requesterSide) {
        this.peer = peer;
        this.localAddress = Objects.requireNonNull(localAddress, "localAddress");
        this.peerAddress = Objects.requireNonNull(peerAddress, "peerAddress");
        this.requesterSide = requesterSide;
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
     * @param connectionNumber the responder's number for the connection, 1 to {@link #MAX_NUMBER}
     */
    void up(InlineThresholds inline, int connectionNumber) {
        if (connectionNumber < 1 || connectionNumber > MAX_NUMBER) {
            throw new IllegalArgumentException("connection number " + connectionNumber + " is not in [1, "
                    + MAX_NUMBER + "]");
        }
        this.thresholds = inline;
        this.number = connectionNumber;
        InetSocketAddress requesterEnd = new InetSocketAddress(
                (requesterSide ? localAddress : peerAddress).inetAddress(), FIRST_PORT + connectionNumber - 1);
        InetSocketAddress responderEnd = new InetSocketAddress(
                (requesterSide ? peerAddress : localAddress).inetAddress(),
                (requesterSide ? peerAddress : localAddress).number() & 0xFFFF);
        this.localSocketAddress = requesterSide ? requesterEnd : responderEnd;
        this.remoteSocketAddress = requesterSide ? responderEnd : requesterEnd;
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

    /** @return this side's socket address, the same object from the time the connection is up; {@code null} before */
    public InetSocketAddress localSocketAddress() {
        return localSocketAddress;
    }

    /** @return the peer's socket address, the same object from the time the connection is up; {@code null} before */
    public InetSocketAddress remoteSocketAddress() {
        return remoteSocketAddress;
    }

    @Override
    public String toString() {
        return "Connection[" + peerAddress + " #" + number + " " + state + "]";
    }
}
