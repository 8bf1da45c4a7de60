package org.rpcrdma4j.transport;

import java.io.IOException;
import java.util.Objects;

/**
 * The RPC-over-RDMA transport failed a call or a connection. Like HTTP/2's stream and connection
 * errors, the {@link Scope} says what is lost: one call, or every call on the connection. An
 * {@link IOException}, so oncrpc4j callers meet it where they expect I/O to fail.
 */
public final class RdmaTransportException extends IOException {

    private static final long serialVersionUID = 1L;

    /** What the error takes down. */
    public enum Scope {
        /** Only the call named in the message failed; the connection still serves others. */
        CALL,
        /** The connection is gone; every call pending on it failed. */
        CONNECTION
    }

    private final Scope scope;

    /**
     * @param scope   what the error takes down
     * @param message what happened, naming the call or connection
     */
    public RdmaTransportException(Scope scope, String message) {
        super(scope + ": " + message);
        this.scope = Objects.requireNonNull(scope, "scope");
    }

    /**
     * @param scope   what the error takes down
     * @param message what happened, naming the call or connection
     * @param cause   what the fabric or a lower layer reported
     */
    public RdmaTransportException(Scope scope, String message, Throwable cause) {
        super(scope + ": " + message, cause);
        this.scope = Objects.requireNonNull(scope, "scope");
    }

    /** @return what the error takes down */
    public Scope scope() {
        return scope;
    }
}
