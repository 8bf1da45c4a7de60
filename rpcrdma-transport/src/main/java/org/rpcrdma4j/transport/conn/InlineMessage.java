package org.rpcrdma4j.transport.conn;

import java.nio.ByteBuffer;
import org.rpcrdma4j.transport.RdmaTransportException;
import org.rpcrdma4j.xdr.HeaderEncoder;
import org.rpcrdma4j.xdr.RpcRdmaHeader;

/**
 * Builds the messages this transport sends: RDMA_MSG with empty chunk lists and the RPC message
 * inline (RFC 8166 §3.5.2 "Short Messages"), and RDMA_ERROR. Each result is a new buffer that the
 * fabric owns until the send completes.
 */
final class InlineMessage {

    /** The RDMA_MSG header with three empty chunk lists: four fixed words and three discriminators. */
    static final int MSG_HEADER_LENGTH = HeaderEncoder.encodedLength(RpcRdmaHeader.msg(0, 0, null, null, null));

    private InlineMessage() {
    }

    /**
     * Checks that an RPC message fits inline. The threshold bounds the whole Send, transport header
     * included (RFC 8166 §3.3.2); a larger message needs a Read list or a Reply chunk, which come
     * later, so it is refused rather than truncated.
     *
     * @param xid       the RPC message's XID, for the error
     * @param rpcLength bytes of the RPC message
     * @param threshold the peer's inline receive threshold
     * @throws RdmaTransportException CALL if it does not fit
     */
    static void checkFits(int xid, int rpcLength, int threshold) throws RdmaTransportException {
        if (MSG_HEADER_LENGTH + rpcLength > threshold) {
            throw new RdmaTransportException(RdmaTransportException.Scope.CALL, "xid 0x" + Integer.toHexString(xid)
                    + ": " + rpcLength + "-byte RPC message plus " + MSG_HEADER_LENGTH
                    + "-byte header exceeds the peer's inline threshold of " + threshold
                    + " bytes; it needs chunks, not supported yet");
        }
    }

    /**
     * @param xid     the RPC message's XID (RFC 8166 §4.2.1: the header repeats it)
     * @param credits the credit value
     * @param rpc     the whole RPC message
     * @return the RDMA_MSG, position 0
     */
    static ByteBuffer msg(int xid, int credits, byte[] rpc) {
        ByteBuffer out = ByteBuffer.allocate(MSG_HEADER_LENGTH + rpc.length);
        int header = HeaderEncoder.encode(RpcRdmaHeader.msg(xid, credits, null, null, null), out, 0);
        out.put(header, rpc);
        return out;
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
