package org.rpcrdma4j.efa.device.verbs;

/** What an {@link EfaSrdDevice} counts, shown through {@link EfaSrdDevice#counters()}. */
public enum SrdCounter {
    /**
     * Completions whose EFA status the SPI has no number for, reported as a nearby one ({@link EfaIoStatus}),
     * or whose status rdma-core does not define at all.
     */
    STATUSES_NARROWED,
    /**
     * Packets received from a sender this device has no address handle for, on a NIC that does not name
     * the sender's GID: reported without a source GID, for the endpoint to name from the packet.
     */
    RECEIVES_UNNAMED,
    /**
     * Receive completions with more bytes than the buffer posted, or a source QPN beyond 16 bits: ended as
     * failed receives, nothing copied.
     */
    RECEIVES_MALFORMED,
    /** Completions with a work request id the device has nothing in flight for; dropped. */
    STRAY_COMPLETIONS,
    /** Bytes of registered heap memory copied into its direct copy and back. */
    BYTES_COPIED
}
