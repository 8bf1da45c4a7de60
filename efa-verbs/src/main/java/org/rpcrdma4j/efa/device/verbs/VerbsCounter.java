package org.rpcrdma4j.efa.device.verbs;

/** What a {@link VerbsDevice} counts, shown through {@link VerbsDevice#counters()}. */
public enum VerbsCounter {
    /** Connections this device made to a peer (its REQ accepted). */
    CONNECTIONS_MADE,
    /** Connections a peer made to this device (its REQ accepted here). */
    CONNECTIONS_ACCEPTED,
    /** Connections that ended with work or a peer behind them: lost, disconnected, replaced. */
    CONNECTIONS_LOST,
    /** Connects that failed: address, route, unreachable, refused. */
    CONNECT_FAILURES,
    /** Requests refused: private data not ours, peers at their bound, or a crossing request of our own kept. */
    REQUESTS_REJECTED,
    /** Connects made again because the peer's own request crossed ours and was kept. */
    COLLISION_RETRIES,
    /** Connections replaced because the peer came back with another Q-Key (a restart). */
    PEER_RESTARTS,
    /** Messages that were no frame of ours; dropped. */
    MALFORMED_FRAMES,
    /** Packets that named another Q-Key than this device's; dropped, as an EFA queue pair drops them. */
    QKEY_DROPS,
    /** Packets answered receiver-not-ready: no receive posted. */
    RNR_ANSWERED,
    /** Packets answered with the receive buffer too short. */
    SHORT_BUFFER_ANSWERED,
    /** Verdicts for no send in flight (its connection's sends already ended); dropped. */
    STALE_RESULTS,
    /** Bytes of registered heap memory copied into its direct copy and back. */
    BYTES_COPIED
}
