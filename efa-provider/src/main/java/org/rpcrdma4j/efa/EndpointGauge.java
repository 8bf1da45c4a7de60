package org.rpcrdma4j.efa;

/**
 * What an endpoint holds right now, as opposed to the events an {@link EndpointCounter} counts.
 * Each gauge returns to its value before a peer was inserted once that peer is removed and its
 * operations have completed, which is how tests show that nothing leaks. Read them
 * in {@link EfaEndpoint#statistics()}.
 */
public enum EndpointGauge {
    /** Peers in the address vector, replaced and unreachable ones included until removed. */
    PEERS,
    /** Device address handles the endpoint holds, one per peer GID. */
    ADDRESS_HANDLES,
    /** TX entries in use: sends, reads and writes not yet completed. */
    TX_ENTRIES,
    /** RX entries in use: posted receives, messages in progress and unexpected messages. */
    RX_ENTRIES,
    /** Messages waiting in the unexpected queue for a receive. */
    UNEXPECTED_MESSAGES,
    /** Bytes held for peers before a receive takes them: unexpected messages and early packets. */
    UNEXPECTED_BYTES,
    /** Send packet buffers out of the pool: being built, posted, or queued for the device or a peer. */
    PACKETS_IN_USE,
    /** Memory registrations the endpoint made itself for long-read messages, not yet released. */
    REGISTRATIONS,
    /** Completion entries written and not yet polled. */
    COMPLETIONS
}
