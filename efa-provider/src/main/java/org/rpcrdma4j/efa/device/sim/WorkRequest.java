package org.rpcrdma4j.efa.device.sim;

import java.nio.ByteBuffer;
import org.rpcrdma4j.efa.device.DeviceAddress;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.Opcode;
import org.rpcrdma4j.efa.device.RmaIov;

/**
 * An operation on the wire: posted by {@code initiator} in its {@code incarnation}, executed by the
 * fabric once {@code dueNs} has come. {@code seq} orders operations due at the same time by post
 * order.
 *
 * @param seq the fabric-wide post order
 * @param dueNs the virtual time from which it may execute
 * @param opcode SEND, RDMA_READ or RDMA_WRITE
 * @param initiator the device that posted it
 * @param incarnation the initiator's incarnation at post time; completions of an older one are lost
 * @param destination the target (GID from the address handle, QPN, Q-Key)
 * @param packet for a SEND: the caller's buffer, read at execution; otherwise {@code null}
 * @param local for RDMA: the local region; otherwise {@code null}
 * @param localOffset for RDMA: the offset in {@code local}
 * @param remote for RDMA: the remote bytes; otherwise {@code null}
 * @param wrId the caller's work request id
 * @param faults the fault plan of the link it travels
 */
record WorkRequest(long seq, long dueNs, Opcode opcode, SimDevice initiator, int incarnation,
                   DeviceAddress destination, ByteBuffer packet, MemoryRegion local, long localOffset,
                   RmaIov remote, long wrId, FaultPlan faults) {

    /** @return the number of bytes the operation moves */
    int length() {
        return packet != null ? packet.remaining() : Math.toIntExact(remote.length());
    }
}
