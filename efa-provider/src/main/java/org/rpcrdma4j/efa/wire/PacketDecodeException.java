package org.rpcrdma4j.efa.wire;

/**
 * A received packet broke a rule of the wire format; {@link #error()} says which.
 *
 * <p>The exception is immutable and carries no stack trace: malformed packets from a peer are an
 * expected event, counted and dropped, not a bug to trace.
 */
public final class PacketDecodeException extends Exception {

    private static final long serialVersionUID = 1L;

    /** The broken rule. */
    private final DecodeError error;

    /**
     * Creates the exception.
     *
     * @param error the broken rule
     * @param message what was wrong, naming the offending value and the limit it broke
     */
    public PacketDecodeException(DecodeError error, String message) {
        super(message, null, false, false);
        this.error = error;
    }

    /**
     * Returns the rule the packet broke.
     *
     * @return the rule
     */
    public DecodeError error() {
        return error;
    }
}
