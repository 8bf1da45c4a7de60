package org.rpcrdma4j.xdr;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * Decodes a received RPC-over-RDMA message into the record model, after the strict checks of
 * {@link RpcRdmaHeaderFlyweight}. Thread-safe; allocates the records. The transport's hot path uses the
 * flyweight directly.
 */
public final class HeaderDecoder {

    private final DecodeLimits limits;

    /** Creates a decoder that enforces {@link DecodeLimits#DEFAULT}. */
    public HeaderDecoder() {
        this(DecodeLimits.DEFAULT);
    }

    /**
     * Creates a decoder that enforces the given limits.
     *
     * @param limits the bounds on counts read from the wire
     */
    public HeaderDecoder(DecodeLimits limits) {
        this.limits = Objects.requireNonNull(limits, "limits");
    }

    /**
     * Decodes a whole received message.
     *
     * @param message the whole message
     * @return the header and where the RPC payload starts
     * @throws RpcRdmaDecodeException if the message breaks a rule
     */
    public DecodedHeader decode(byte[] message) throws RpcRdmaDecodeException {
        return decode(ByteBuffer.wrap(message), 0, message.length);
    }

    /**
     * Decodes the message at {@code buffer[offset, offset + length)}.
     *
     * @param buffer the received bytes; position and byte order are neither used nor changed
     * @param offset index of the first header byte
     * @param length bytes in the message, header and inline payload
     * @return the header and where the RPC payload starts
     * @throws RpcRdmaDecodeException if the message breaks a rule
     * @throws IndexOutOfBoundsException if the range does not lie below the buffer's limit
     */
    public DecodedHeader decode(ByteBuffer buffer, int offset, int length) throws RpcRdmaDecodeException {
        RpcRdmaHeaderFlyweight view = new RpcRdmaHeaderFlyweight(limits).wrap(buffer, offset, length);
        return new DecodedHeader(view.toHeader(), view.payloadOffset(), view.headerLength(), view.payloadLength());
    }
}
