package org.rpcrdma4j.transport.oncrpc;

import org.dcache.oncrpc4j.rpc.RpcMessageType;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.glassfish.grizzly.Buffer;

/** Moves encoded RPC messages between oncrpc4j's {@link Xdr} and the transport's byte arrays. */
final class XdrBytes {

    private XdrBytes() {
    }

    /**
     * @param xdr an encoded message, after {@code endEncoding}
     * @return a copy of its bytes; the transport owns it, so the caller may reuse the Xdr
     */
    static byte[] of(Xdr xdr) {
        Buffer buffer = xdr.asBuffer();
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }

    /**
     * @param message an RPC message
     * @return its XID, the first word (RFC 5531 §9); the transport header repeats it (RFC 8166 §4.2.1)
     */
    static int xid(byte[] message) {
        if (message.length < 4) {
            throw new IllegalArgumentException("an RPC message of " + message.length + " bytes has no XID");
        }
        return (message[0] & 0xFF) << 24 | (message[1] & 0xFF) << 16 | (message[2] & 0xFF) << 8 | message[3] & 0xFF;
    }

    /**
     * @param message an RPC message
     * @return whether it is a call: its {@code msg_type}, the word after the XID, is CALL (RFC 5531 §9)
     */
    static boolean isCall(byte[] message) {
        return message.length >= 8 && (message[4] | message[5] | message[6] | message[7]) == RpcMessageType.CALL;
    }
}
