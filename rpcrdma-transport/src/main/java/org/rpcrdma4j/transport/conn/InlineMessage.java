package org.rpcrdma4j.transport.conn;

import java.nio.ByteBuffer;
import java.util.List;
import org.rpcrdma4j.xdr.HeaderEncoder;
import org.rpcrdma4j.xdr.RpcRdmaHeader;

/**
 * Builds the messages that are inline by rule: RDMA_ERROR (RFC 8166 §4.5) and backward-direction
 * calls and replies, an RDMA_MSG without chunks (RFC 8167). Each result is a new buffer
 * that the fabric owns until the send completes. Forward calls and replies are built by
 * {@code org.rpcrdma4j.transport.marshal}.
 */
final class InlineMessage {

    private InlineMessage() {
    }

    /**
     * @param header an RDMA_ERROR header
     * @return the encoded message, position 0
     */
    static ByteBuffer error(RpcRdmaHeader header) {
        ByteBuffer out = ByteBuffer.allocate(HeaderEncoder.encodedLength(header));
        HeaderEncoder.encode(header, out, 0);
        return out;
    }

    /**
     * @param xid        the XID of the RPC message
     * @param credits    the credit value: requested in a backward call, granted in a backward reply
     * @param rpcMessage the whole RPC message
     * @return the encoded RDMA_MSG, position 0
     */
    static ByteBuffer msg(int xid, int credits, byte[] rpcMessage) {
        RpcRdmaHeader header = RpcRdmaHeader.msg(xid, credits, List.of(), List.of(), null);
        ByteBuffer out = ByteBuffer.allocate(HeaderEncoder.encodedLength(header) + rpcMessage.length);
        out.put(HeaderEncoder.encode(header, out, 0), rpcMessage);
        return out;
    }
}
