package org.rpcrdma4j.transport.oncrpc;

import java.nio.ByteBuffer;
import org.dcache.oncrpc4j.xdr.BadXdrOncRpcException;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.Buffers;
import org.rpcrdma4j.transport.marshal.ChunkBufferPool;

/**
 * The {@link Xdr} a client's reply is decoded from, when the reply's chunk data lies in memory
 * leased from the requester's {@link ChunkBufferPool}. oncrpc4j decodes a result in place and ends
 * with {@link #endDecoding} ({@code RpcReply.getReplyResult}), so that is when the memory goes back
 * to the pool; until then the lease is held, and a reply never decoded never gives it back.
 *
 * <h2>Buffer ownership</h2>
 * Most of oncrpc4j's decoding copies (numbers, strings, {@code xdrDecodeDynamicOpaque}); two
 * methods do not. {@link #xdrDecodeByteBuffer} returns a view of the message, which the caller may
 * keep after the call (on oncrpc4j's TCP transport such a view is valid for good): a view into the
 * leased memory is replaced by a copy when it is short ({@link ChunkBufferPool.Lease#keep}),
 * otherwise the memory becomes the caller's and never returns to the pool. {@link #asBuffer} exposes
 * the whole message, so it hands the memory over too. Once the memory is back in the pool this Xdr
 * holds nothing: decoding it again fails instead of reading another call's bytes.
 */
final class ReplyXdr extends Xdr {

    private final ChunkBufferPool.Lease lease;

    /**
     * @param message the reply, parts of it views of the leased memory
     * @param lease   that memory's lease
     */
    ReplyXdr(Buffer message, ChunkBufferPool.Lease lease) {
        super(message);
        this.lease = lease;
    }

    @Override
    public ByteBuffer xdrDecodeByteBuffer() throws BadXdrOncRpcException {
        ByteBuffer item = super.xdrDecodeByteBuffer();
        // oncrpc4j returns a view only when the rest of the message lies in one part, else a copy.
        return lease.holds(item) ? lease.keep(item) : item;
    }

    @Override
    public Buffer asBuffer() {
        lease.handOver();
        return super.asBuffer();
    }

    @Override
    public void endDecoding() {
        super.endDecoding();
        if (lease.giveBack()) {
            _buffer = Buffers.EMPTY_BUFFER;
        }
    }
}
