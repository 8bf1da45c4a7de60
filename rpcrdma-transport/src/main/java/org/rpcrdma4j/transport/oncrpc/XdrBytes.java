package org.rpcrdma4j.transport.oncrpc;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.dcache.oncrpc4j.grizzly.GrizzlyMemoryManager;
import org.dcache.oncrpc4j.rpc.RpcMessageType;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.BuffersBuffer;
import org.glassfish.grizzly.memory.ByteBufferArray;
import org.glassfish.grizzly.memory.MemoryManager;
import org.rpcrdma4j.transport.MessageBytes;

/** Moves encoded RPC messages between oncrpc4j's {@link Xdr} and the transport's bytes. */
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
     * Takes an encoded message without moving it: views of oncrpc4j's buffers (a shallow-encoded READ
     * result is one of them, the program's own).
     *
     * @param xdr an encoded message, after {@code endEncoding}; its buffers must not change or be
     *            disposed until the transport is done with the message
     * @return the message
     */
    static MessageBytes view(Xdr xdr) {
        ByteBufferArray array = xdr.asBuffer().toByteBufferArray();
        try {
            // MessageBytes slices them: restoring the array's buffers after does not move the views.
            return MessageBytes.of(Arrays.asList(array.getArray()).subList(0, array.size()));
        } finally {
            array.restore();
            array.recycle();
        }
    }

    /**
     * @param message a received message
     * @return it as a Grizzly buffer for oncrpc4j to decode, over the same bytes
     */
    static Buffer buffer(MessageBytes message) {
        MemoryManager memory = GrizzlyMemoryManager.getDefaultMemoryManager();
        if (message.bufferCount() == 1) {
            return Buffers.wrap(memory, message.buffer(0));
        }
        Buffer[] wrapped = new Buffer[message.bufferCount()];
        for (int i = 0; i < wrapped.length; i++) {
            wrapped[i] = Buffers.wrap(memory, message.buffer(i));
        }
        return BuffersBuffer.create(memory, wrapped);
    }

    /**
     * @param message an RPC message
     * @return its XID, the first word (RFC 5531 §9); the transport header repeats it (RFC 8166 §4.2.1)
     */
    static int xid(MessageBytes message) {
        if (message.length() < 4) {
            throw new IllegalArgumentException("an RPC message of " + message.length() + " bytes has no XID");
        }
        return message.getInt(0);
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
