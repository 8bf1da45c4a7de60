package org.rpcrdma4j.transport.oncrpc;

import org.dcache.oncrpc4j.grizzly.GrizzlyMemoryManager;
import org.dcache.oncrpc4j.xdr.Xdr;

/**
 * oncrpc4j's {@link Xdr} over a received call, whose reply is encoded into a buffer of its own: the
 * call's bytes stay as they came until the reply is sent, so that the transport can ask the DDP policy
 * where the reply's results sit without having copied the call (oncrpc4j's own {@code Xdr} encodes
 * the reply over the call).
 */
final class CallXdr extends Xdr {

    /** @param call the whole call message, decoded in place */
    CallXdr(byte[] call) {
        super(call);
    }

    @Override
    public void beginEncoding() {
        _buffer = GrizzlyMemoryManager.allocate(INITIAL_XDR_SIZE);
        super.beginEncoding();
    }
}
