package org.rpcrdma4j.efa.device;

/**
 * Optional abilities of a device, as the EFA direct-verbs device attributes report them. The RDM
 * protocol advertises the matching extra features in its handshake: RDMA read is extra feature 0,
 * RDMA write extra feature 5 (EFA RDM protocol v4 §4.1 and §4.6).
 */
public enum Capability {
    /** One-sided RDMA read of up to {@link DeviceAttributes#maxRdmaSize()} bytes. */
    RDMA_READ,
    /** One-sided RDMA write of up to {@link DeviceAttributes#maxRdmaSize()} bytes. */
    RDMA_WRITE
}
