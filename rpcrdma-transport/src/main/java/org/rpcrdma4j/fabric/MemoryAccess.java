package org.rpcrdma4j.fabric;

/** The rights a {@link Fabric#register registration} grants, as {@code ibv_access_flags} name them. */
public enum MemoryAccess {
    /** The local device may write the memory: needed by the target of an RDMA Read. */
    LOCAL_WRITE,
    /** Peers may RDMA Read the memory: a requester's Read chunks (RFC 8166 §3.4.5). */
    REMOTE_READ,
    /** Peers may RDMA Write the memory: a requester's Write and Reply chunks (RFC 8166 §3.4.6, §3.5.3). */
    REMOTE_WRITE
}
