package org.rpcrdma4j.fabric.efa;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.rpcrdma4j.fabric.ConnectionListener;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.fabric.FabricConnection;
import org.rpcrdma4j.fabric.FabricStatus;
import org.rpcrdma4j.fabric.Registration;
import org.rpcrdma4j.transport.RdmaTransportException;
import org.rpcrdma4j.xdr.ConnectPrivateData;
import org.rpcrdma4j.xdr.Segment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection of an {@link EfaFabric}: a peer handle, the ids both sides gave the connection, and
 * what is posted on it. Messages go on the data tag of the receiver's id, so the endpoint matches
 * each message to this connection's receives alone. Progress thread only.
 *
 * <p>When the connection ends, its data tag is closed ({@link EfaFabric#closeTag}): its posted receives are
 * cancelled and come back flushed, and what the peer sent that no receive took is dropped; its sends
 * and RDMA operations when the endpoint ends them; then the listener hears
 * {@link ConnectionListener#onDisconnected}. A completion that fails with a connection-wide status
 * ends the connection, as a failed work request puts an RC queue pair in the error state, and so does
 * a message of the peer's that the endpoint dropped for lack of room ({@link #overrun}).
 */
final class EfaConnection implements FabricConnection {

    private static final Logger LOG = LoggerFactory.getLogger(EfaConnection.class);

    private enum State { CONNECTING, ESTABLISHED, CLOSED }

    private final EfaFabric fabric;
    private final int id;
    private final long peerHandle;
    private final FabricAddress peer;
    private final ConnectionListener listener;
    private final boolean requester;
    private final Map<Long, ByteBuffer> receives = new HashMap<>();
    private volatile InetSocketAddress localSocketAddress;
    private final InetSocketAddress remoteSocketAddress;
    private State state = State.CONNECTING;
    private int peerId;
    private int outstanding;
    private FabricStatus endStatus;
    private String endDetail;
    private boolean disconnected;

    /**
     * @param fabric     the fabric
     * @param id         this side's id of the connection
     * @param peerHandle the endpoint's handle of the peer
     * @param peer       the peer's address
     * @param requester  whether this side opened the connection
     * @param peerId     the peer's id of the connection; a requester learns it from ACCEPT
     * @param listener   gets the connection's events
     */
    EfaConnection(EfaFabric fabric, int id, long peerHandle, FabricAddress peer, boolean requester, int peerId,
                  ConnectionListener listener) {
        this.fabric = fabric;
        this.id = id;
        this.peerHandle = peerHandle;
        this.peer = peer;
        this.peerId = peerId;
        this.listener = listener;
        this.requester = requester;
        FabricAddress local = fabric.localAddress();
        if (requester) {
            remoteSocketAddress = new InetSocketAddress(peer.inetAddress(), peer.number() & 0xFFFF);
        } else {
            localSocketAddress = new InetSocketAddress(local.inetAddress(), local.number() & 0xFFFF);
            remoteSocketAddress = new InetSocketAddress(peer.inetAddress(), EfaFabric.port(id));
        }
    }

    int id() {
        return id;
    }

    long peerHandle() {
        return peerHandle;
    }

    int peerId() {
        return peerId;
    }

    boolean requester() {
        return requester;
    }

    boolean connecting() {
        return state == State.CONNECTING;
    }

    boolean closed() {
        return state == State.CLOSED;
    }

    /** @return why the connection ended, or {@code null} while it has not */
    FabricStatus endStatus() {
        return endStatus;
    }

    /** The peer accepted (requester) or this side's ACCEPT went out (responder). */
    void established(ConnectPrivateData peerData, int acceptedPeerId) {
        if (requester) {
            peerId = acceptedPeerId;
            localSocketAddress = new InetSocketAddress(fabric.localAddress().inetAddress(), EfaFabric.port(peerId));
        }
        state = State.ESTABLISHED;
        listener.onEstablished(peerData);
    }

    @Override
    public FabricAddress peer() {
        return peer;
    }

    @Override
    public InetSocketAddress localSocketAddress() {
        return localSocketAddress;
    }

    @Override
    public InetSocketAddress remoteSocketAddress() {
        return remoteSocketAddress;
    }

    @Override
    public boolean postReceive(ByteBuffer buffer) {
        if (state == State.CLOSED) {
            return false;
        }
        long context = fabric.receive(this, peerHandle, buffer, EfaFabric.dataTag(id));
        if (context < 0) {
            return false;
        }
        receives.put(context, buffer);
        return true;
    }

    @Override
    public boolean send(ByteBuffer message, long context) {
        return post(() -> fabric.send(this, peerHandle, message, EfaFabric.dataTag(peerId), context),
                () -> listener.onSendCompleted(context, FabricStatus.FLUSHED));
    }

    @Override
    public boolean read(Registration local, long localOffset, Segment remote, long context) {
        return post(() -> fabric.rdma(this, true, peerHandle, local, localOffset, remote, context),
                () -> listener.onRdmaCompleted(context, FabricStatus.FLUSHED));
    }

    @Override
    public boolean write(Registration local, long localOffset, Segment remote, long context) {
        return post(() -> fabric.rdma(this, false, peerHandle, local, localOffset, remote, context),
                () -> listener.onRdmaCompleted(context, FabricStatus.FLUSHED));
    }

    /** Starts a send or an RDMA operation, or, once the connection has ended, reports it flushed. */
    private boolean post(BooleanSupplier start, Runnable flushed) {
        if (state == State.CLOSED) {
            flush(flushed);
            return true;
        }
        if (!start.getAsBoolean()) {
            return false;
        }
        outstanding++;
        return true;
    }

    @Override
    public void close() {
        shutdown(FabricStatus.CLOSED, "closed by this side", ControlMessage.close(peerId));
    }

    /**
     * The endpoint dropped a message the peer sent on this connection, for lack of room: the peer sent
     * beyond its credits, and the message is lost. The connection ends as a verbs RC connection does
     * when a Send meets receiver-not-ready past its retries, and the peer hears why (OVERRUN).
     */
    void overrun(String detail) {
        shutdown(FabricStatus.RECEIVER_NOT_READY, detail, ControlMessage.overrun(peerId));
    }

    /**
     * Ends the connection from this side, telling the peer unless it cannot be reached. It ends even if
     * the CLOSE cannot be posted (logged once, at WARN): the peer then learns it when its own work fails.
     */
    private void shutdown(FabricStatus status, String detail, ControlMessage goodbye) {
        if (state == State.CLOSED) {
            return;
        }
        if ((!connecting() || !requester) && status != FabricStatus.PEER_UNREACHABLE) {
            try {
                fabric.sendControl(peerHandle, goodbye);
            } catch (RuntimeException e) {
                LOG.warn("{} ends without telling its peer: the CLOSE could not be posted", this, e);
            }
        }
        end(status, detail);
    }

    /**
     * Ends the connection without telling the peer (it told us, or it is gone): what is posted comes
     * back flushed, then the listener hears the end.
     */
    void end(FabricStatus status, String detail) {
        if (state == State.CLOSED) {
            return;
        }
        state = State.CLOSED;
        endStatus = status;
        endDetail = detail;
        fabric.closeTag(id);
        fabric.defer(this::disconnectIfDone);
    }

    /**
     * The endpoint heard from a new queue pair on the peer's GID and QPN (a new connid, EFA RDM v4 §4.4):
     * the peer's process restarted, and nothing of this connection is left there to tell.
     */
    void peerRestarted() {
        end(FabricStatus.PEER_UNREACHABLE, "the peer's process restarted: a new queue pair with a new connid"
                + " answers on its address, and knows nothing of this connection");
    }

    void onReceived(long context, ByteBuffer buffer, FabricStatus status, int length) {
        receives.remove(context);
        if (status.ok() && !closed()) {
            listener.onReceived(buffer, length);
        } else {
            listener.onReceiveFailed(buffer, closed() ? FabricStatus.FLUSHED : status);
        }
        disconnectIfDone();
    }

    void onSendCompleted(long context, FabricStatus status) {
        outstanding--;
        listener.onSendCompleted(context, failed(status));
        disconnectIfDone();
    }

    void onRdmaCompleted(long context, FabricStatus status) {
        outstanding--;
        listener.onRdmaCompleted(context, failed(status));
        disconnectIfDone();
    }

    /** @return the status to report: a failure after the end is a flush; one that loses the connection ends it */
    private FabricStatus failed(FabricStatus status) {
        if (status.ok() || status.scope() == RdmaTransportException.Scope.CALL) {
            return status;
        }
        if (closed()) {
            return FabricStatus.FLUSHED;
        }
        shutdown(status, "a work request failed: " + status, ControlMessage.close(peerId));
        return status;
    }

    /** Reports one piece of work flushed, on the progress thread's next turn, before the disconnect. */
    private void flush(Runnable report) {
        outstanding++;
        fabric.defer(() -> {
            outstanding--;
            report.run();
            disconnectIfDone();
        });
    }

    private void disconnectIfDone() {
        if (state == State.CLOSED && outstanding == 0 && receives.isEmpty() && !disconnected) {
            disconnected = true;
            fabric.forget(this);
            listener.onDisconnected(endStatus, endDetail);
        }
    }

    @Override
    public String toString() {
        return (requester ? "to " : "from ") + peer.inetAddress().getHostAddress() + " #" + id + "/" + peerId;
    }
}
