package org.rpcrdma4j.efa.device.udp;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import org.rpcrdma4j.efa.device.Opcode;
import org.rpcrdma4j.efa.device.RmaIov;

/**
 * An operation a {@link UdpDevice} initiated: made on the posting thread, owned by the I/O thread
 * from its hand-over through the command queue until it completes.
 */
final class UdpOp {

    final Opcode opcode;
    final long wrId;
    final InetSocketAddress to;
    final int destQkey;
    /**
     * SEND: the packet (a duplicate made at the post); RDMA_READ: the local bytes to fill; RDMA_WRITE:
     * the local bytes to send. Each from position 0 to its length.
     */
    final ByteBuffer data;
    /** RDMA only: the remote bytes. */
    final RmaIov remote;
    /** The bytes the operation moves. */
    final int length;

    long token;
    SrdEngine.Peer peer;
    /** RDMA_READ: bytes arrived so far. */
    long received;
    /** RDMA_WRITE: bytes handed to the transport so far. */
    long cursor;

    UdpOp(Opcode opcode, long wrId, InetSocketAddress to, int destQkey, ByteBuffer data, RmaIov remote, int length) {
        this.opcode = opcode;
        this.wrId = wrId;
        this.to = to;
        this.destQkey = destQkey;
        this.data = data;
        this.remote = remote;
        this.length = length;
    }
}
