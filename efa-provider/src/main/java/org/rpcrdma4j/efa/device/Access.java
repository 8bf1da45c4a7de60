package org.rpcrdma4j.efa.device;

/**
 * Access rights of a memory registration, as {@code ibv_access_flags} (and libfabric's
 * {@code FI_REMOTE_READ}/{@code FI_REMOTE_WRITE}) define them. Every remote access is checked
 * against them (the libfabric programmer's guide, "Memory Registration").
 */
public enum Access {
    /** The local device may write the region: needed by the destination of an RDMA read. */
    LOCAL_WRITE,
    /** Peers may RDMA-read the region. */
    REMOTE_READ,
    /** Peers may RDMA-write the region. */
    REMOTE_WRITE
}
