package org.rpcrdma4j.testbed.trace;

/**
 * The data one RDMA Write or one RDMA Read moved, reassembled from its packets.
 *
 * @param frame  the frame that completed it (the last Write packet or the last Read response)
 * @param write  true for an RDMA Write, false for the response to an RDMA Read Request
 * @param rkey   the remote key of the memory written or read (the RETH's R_Key)
 * @param va     the remote address of its first byte (the RETH's virtual address)
 * @param data   the bytes moved
 * @param elided whether an export elided some of them ({@link RocePacket#elided()})
 */
public record RdmaTransfer(int frame, boolean write, int rkey, long va, byte[] data, boolean elided) {
}
