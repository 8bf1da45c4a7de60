package org.rpcrdma4j.transport.conn;

import java.nio.ByteBuffer;
import org.rpcrdma4j.xdr.HeaderEncoder;
import org.rpcrdma4j.xdr.RpcRdmaHeader;

/**
 * Builds RDMA_ERROR messages (RFC 8166 §4.5). Each result is a new buffer that the fabric owns until
 * the send completes. Calls and replies are built by {@code org.rpcrdma4j.transport.marshal}.
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
}
