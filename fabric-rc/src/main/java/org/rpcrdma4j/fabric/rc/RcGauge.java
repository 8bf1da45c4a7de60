package org.rpcrdma4j.fabric.rc;

/** What an {@link RcFabric} holds now ({@link RcFabricStatistics#gauge}). */
public enum RcGauge {
    /** Queue pairs made and not yet destroyed. */
    QUEUE_PAIRS,
    /** Receives posted on the connections' queue pairs, or waiting for their queue pair. */
    POSTED_RECEIVES,
    /** Sends, RDMA Reads and Writes posted on the connections' send queues and not yet completed. */
    POSTED_SENDS,
    /** Bytes of the chunk pool's blocks (memory no peer may touch) in use by registrations. */
    CHUNK_POOL_BYTES_IN_USE,
    /** Bytes registered for the chunk pool: whole slabs, free or in use. */
    CHUNK_POOL_BYTES_REGISTERED,
    /** Bytes of the window pool's blocks in use: requester chunks a peer may reach, or not yet invalidated. */
    WINDOW_POOL_BYTES_IN_USE,
    /** Bytes registered for the window pool: whole slabs, free or in use. */
    WINDOW_POOL_BYTES_REGISTERED,
    /** Memory windows allocated by the connections, bound or free. */
    MEMORY_WINDOWS,
    /** Message buffers in registered memory taken by the transport and not yet given back. */
    MESSAGE_BUFFERS_IN_USE,
    /** Bytes registered for message buffers: whole slabs, free or in use; 0 once the fabric is closed. */
    MESSAGE_BUFFER_BYTES_REGISTERED
}
