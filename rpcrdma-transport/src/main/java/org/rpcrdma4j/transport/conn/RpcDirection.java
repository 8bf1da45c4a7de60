package org.rpcrdma4j.transport.conn;

import java.nio.ByteBuffer;
import org.rpcrdma4j.xdr.Proc;
import org.rpcrdma4j.xdr.RpcRdmaHeaderFlyweight;

/**
 * Tells a backward-direction message from a forward one on a connection that carries both (RFC 8167):
 * by the RPC message's {@code msg_type} (RFC 5531 §9), the word after the XID. Only an RDMA_MSG
 * without chunks can be a backward message, since backward messages are inline only (RFC 8167);
 * Linux checks the same ({@code rpcrdma_is_bcall} on the client, {@code svc_rdma_is_reverse_direction_reply}
 * on the server).
 */
final class RpcDirection {

    /** {@code msg_type} CALL. */
    static final int CALL = 0;
    /** {@code msg_type} REPLY. */
    static final int REPLY = 1;
    /** Not a candidate for the backward direction: chunks, RDMA_NOMSG, RDMA_ERROR, or too short. */
    static final int NONE = -1;

    private RpcDirection() {
    }

    /**
     * @param header a header wrapped over {@code buffer}
     * @param buffer the received message
     * @return the RPC {@code msg_type} of an inline RDMA_MSG without chunks whose RPC message has one,
     *     else {@link #NONE}
     */
    static int msgType(RpcRdmaHeaderFlyweight header, ByteBuffer buffer) {
        if (header.proc() != Proc.RDMA_MSG || header.readSegmentCount() != 0 || header.writeChunkCount() != 0
                || header.hasReplyChunk() || header.payloadLength() < 2 * Integer.BYTES) {
            return NONE;
        }
        return buffer.getInt(header.payloadOffset() + Integer.BYTES);
    }
}
