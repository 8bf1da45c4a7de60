package org.rpcrdma4j.transport.conn;

/**
 * A responder's grant (RFC 8166 §3.3.1): a fixed number, never 0, announced in every message it
 * sends, and backed by that many receive buffers posted per connection. Immutable.
 */
final class ResponderCredits {

    private final int granted;

    /**
     * @param granted the credits to grant; at least 1, since a grant of 0 would stall the requester
     */
    public ResponderCredits(int granted) {
        if (granted < 1) {
            throw new IllegalArgumentException("a responder never grants " + granted + " credits (RFC 8166 §3.3.1)");
        }
        this.granted = granted;
    }

    /** @return the credit value for every message this responder sends */
    public int granted() {
        return granted;
    }

    /**
     * @param connections connections served at most
     * @return the receives to keep posted so that every connection can use its whole grant
     */
    public int receivesFor(int connections) {
        return Math.multiplyExact(granted, connections);
    }
}
