package org.rpcrdma4j.transport.oncrpc;

import java.nio.ByteBuffer;
import org.dcache.oncrpc4j.grizzly.GrizzlyMemoryManager;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.Buffers;
import org.rpcrdma4j.fabric.MessageBuffers;
import org.rpcrdma4j.transport.marshal.ReplyPlan;

/**
 * oncrpc4j's {@link Xdr} over a received call, whose reply is encoded into a buffer of its own: the
 * call's bytes stay as they came until the reply is sent, so that the transport can ask the DDP policy
 * where the reply's results sit without having copied the call (oncrpc4j's own {@code Xdr} encodes
 * the reply over the call).
 *
 * <p>That buffer is one of the fabric's message buffers, with {@link ReplyPlan#HEADER_ROOM} left free
 * before the reply: a short reply is then sent from where it was encoded, without a copy and without
 * a buffer allocated per reply (on verbs RC the buffer is registered memory). A reply that outgrows it
 * is grown into a heap buffer ({@link ReplyMemoryManager}), in one piece as oncrpc4j grows its own.
 *
 * <p>The call itself may lie in the fabric's receive buffer, lent by the responder as svcrdma keeps a
 * call's receive until its reply is sent: arguments decoded in place (oncrpc4j's
 * {@code xdrDecodeByteBuffer}) are views of it, valid until the reply is sent. {@link #close}, once the
 * reply is sent or none will be, gives both buffers back.
 */
final class CallXdr extends Xdr {

    private final MessageBuffers buffers;
    /** The receive buffer the call lies in, lent until the call is done; or null. */
    private ByteBuffer lent;
    /** Run once, at the first {@link #close}. */
    private final Runnable onClose;
    private boolean closed;
    /** The message buffer the reply is encoded into, while this Xdr owns it. */
    private ByteBuffer reply;
    /** oncrpc4j's view of its bytes after the header's room; replaced if the reply outgrows it. */
    private Buffer encoding;

    /**
     * @param call    the whole call message between its position and limit, decoded in place
     * @param lent    the receive buffer the call lies in, given back to {@code buffers} at {@link #close};
     *                or null
     * @param buffers where the reply's buffer comes from: the fabric's message buffers
     * @param onClose run once the call is done ({@link #close})
     */
    CallXdr(ByteBuffer call, ByteBuffer lent, MessageBuffers buffers, Runnable onClose) {
        super(Buffers.wrap(GrizzlyMemoryManager.getDefaultMemoryManager(), call), ReplyMemoryManager.INSTANCE);
        this.lent = lent;
        this.buffers = buffers;
        this.onClose = onClose;
    }

    @Override
    public void beginEncoding() {
        releaseReply();
        reply = buffers.allocate(ReplyPlan.HEADER_ROOM + INITIAL_XDR_SIZE);
        encoding = Buffers.wrap(GrizzlyMemoryManager.getDefaultMemoryManager(),
                reply.slice(ReplyPlan.HEADER_ROOM, INITIAL_XDR_SIZE));
        _buffer = encoding;
        super.beginEncoding();
    }

    /**
     * Hands the buffer the reply was encoded into over to the caller, if the reply lies in it whole.
     *
     * @param xdr an encoded reply
     * @return the message buffer holding it from {@link ReplyPlan#HEADER_ROOM} on, now the caller's;
     *     null if {@code xdr} is not a {@code CallXdr} or its reply outgrew the buffer (which it then
     *     keeps until {@link #close})
     */
    static ByteBuffer takeReply(Xdr xdr) {
        if (!(xdr instanceof CallXdr call) || call.reply == null || call._buffer != call.encoding) {
            return null;
        }
        ByteBuffer taken = call.reply;
        call.reply = null;
        return taken;
    }

    /** Ends the call: gives back the buffers it holds, once its reply is sent or it gets none. */
    @Override
    public void close() {
        super.close();
        releaseReply();
        if (lent != null) {
            buffers.release(lent);
            lent = null;
        }
        if (!closed) {
            closed = true;
            onClose.run();
        }
    }

    private void releaseReply() {
        if (reply != null) {
            buffers.release(reply);
            reply = null;
        }
    }
}
