package org.rpcrdma4j.efa.device.udp;

/**
 * What a {@link UdpDevice} counts: datagrams it dropped and why, and the work of its reliability
 * layer. Read them with {@link UdpDevice#counter(UdpCounter)} from any thread.
 */
public enum UdpCounter {
    /** Datagrams sent, retransmissions and acknowledgements included. */
    DATAGRAMS_SENT,
    /** Datagrams received, good or bad. */
    DATAGRAMS_RECEIVED,
    /** DATA frames sent again: {@link #FAST_RETRANSMISSIONS}, {@link #TAIL_PROBES} and one per {@link #TIMEOUTS}. */
    RETRANSMISSIONS,
    /** Frames sent again at once because frames sent after them were acknowledged and they were not. */
    FAST_RETRANSMISSIONS,
    /** The newest frame sent again after two round trips without an acknowledgement, to learn what is missing. */
    TAIL_PROBES,
    /** Frames that carried only an acknowledgement. */
    ACKS_SENT,
    /** Retransmission timeouts that fired. */
    TIMEOUTS,
    /** The RTOs those timeouts waited, in microseconds: how long peers' streams stood still for lack of acks. */
    TIMEOUT_MICROS,
    /** Flushes that left frames waiting because the send window was full. */
    WINDOW_STALLS,
    /** Dropped: shorter than its headers, or not exactly as long as its headers say. */
    BAD_LENGTH,
    /** Dropped: wrong magic, version, frame type or operation. */
    BAD_HEADER,
    /** Dropped by the transport: a frame for another Q-Key than this queue pair's (not a request). */
    BAD_QKEY,
    /**
     * Requests the queue pair refused for their Q-Key after the transport took them: a send is
     * discarded (the sender still completes, as on EFA), an RDMA request answered with an error.
     */
    REQUEST_QKEY_MISMATCH,
    /** Dropped: from an address with no peer state, and not a request that may create one. */
    UNKNOWN_PEER,
    /** Dropped: a new peer beyond {@link UdpDeviceConfig#maxPeers()}. */
    PEER_LIMIT,
    /** Dropped: a PSN outside the receive window. */
    OUTSIDE_WINDOW,
    /** Dropped: a PSN that had already arrived (acknowledged again). */
    DUPLICATES,
    /** Dropped: a frame of an older stream of the same sender. */
    STALE_STREAM,
    /** Ignored: an acknowledgement of something never sent, or of an old stream. */
    BAD_ACK,
    /** Dropped unacknowledged for lack of room for the answer; the sender retransmits it later. */
    BACKPRESSURE,
    /** Ignored: an answer naming no operation in progress with its sender, or not fitting it. */
    STRAY_ANSWERS,
    /** Sends refused with receiver-not-ready: no receive was posted. */
    RNR,
    /** Sends refused with receiver-not-ready by the fault injector. */
    RNR_INJECTED,
    /** Sends refused because the receive buffer was shorter than the packet. */
    RECV_BUFFER_TOO_SHORT,
    /** RDMA requests refused: key, bounds, access or capability. */
    REMOTE_ACCESS_REFUSED,
    /** Peers declared unreachable: their operations completed with an error. */
    PEERS_UNREACHABLE,
    /** Probes sent towards a port nothing answered from. */
    PROBES_SENT,
    /** Probes received (and ignored). */
    PROBES_RECEIVED,
    /** Datagrams the fault injector dropped. */
    FAULT_DROPPED,
    /** Datagrams the fault injector sent twice. */
    FAULT_DUPLICATED,
    /** Datagrams the fault injector held back behind later ones. */
    FAULT_REORDERED,
    /** Exceptions caught on the I/O thread (a bug or a socket error; logged once). */
    IO_ERRORS
}
