package org.rpcrdma4j.fabric;

import org.rpcrdma4j.transport.RdmaTransportException;

/**
 * How a fabric operation or connection ended, with what it takes down: the table that tells a call
 * error from a connection error (as {@code ibv_wc_status} values and RDMA-CM events do for verbs, and
 * {@code fi_cq_err_entry} errors for libfabric).
 */
public enum FabricStatus {
    /** It worked. */
    SUCCESS(null),
    /** The message was longer than the receive buffer (RFC 8166 §3.3.2 broken): this message only. */
    MESSAGE_TOO_LONG(RdmaTransportException.Scope.CALL),
    /** Local memory was refused (unknown or deregistered registration, out of bounds): this operation only. */
    LOCAL_PROTECTION(RdmaTransportException.Scope.CALL),
    /**
     * The peer refused an RDMA access (a handle it never registered or already invalidated, out of
     * bounds): svcrdma and xprtrdma close the connection then, since the peer's state is unknown.
     */
    REMOTE_ACCESS(RdmaTransportException.Scope.CONNECTION),
    /** The peer stopped taking messages (receiver not ready past the retry budget). */
    RECEIVER_NOT_READY(RdmaTransportException.Scope.CONNECTION),
    /** The peer cannot be reached, or vanished (a restarted process is a new peer). */
    PEER_UNREACHABLE(RdmaTransportException.Scope.CONNECTION),
    /** The peer refused the connection. */
    REFUSED(RdmaTransportException.Scope.CONNECTION),
    /** The connection closed in order, by either side. */
    CLOSED(RdmaTransportException.Scope.CONNECTION),
    /** The operation was still posted when the connection ended. */
    FLUSHED(RdmaTransportException.Scope.CONNECTION),
    /** The fabric failed in a way it has no better name for. */
    FABRIC_ERROR(RdmaTransportException.Scope.CONNECTION);

    private final RdmaTransportException.Scope scope;

    FabricStatus(RdmaTransportException.Scope scope) {
        this.scope = scope;
    }

    /** @return what a failure with this status takes down; {@code null} for {@link #SUCCESS} */
    public RdmaTransportException.Scope scope() {
        return scope;
    }

    /** @return whether it worked */
    public boolean ok() {
        return this == SUCCESS;
    }
}
