package org.rpcrdma4j.transport.oncrpc;

import java.nio.channels.CompletionHandler;
import org.rpcrdma4j.transport.RdmaTransportException;

/**
 * oncrpc4j's send of a call on this transport, forward or backward: the transport takes the call or
 * refuses it at once, and oncrpc4j's send handler hears which; a refusal fails the call oncrpc4j
 * registered for its reply, so the caller learns of it now rather than at its timeout.
 */
final class CallSend {

    /** Hands a call to the transport. */
    @FunctionalInterface
    interface Submit {

        /** @throws RdmaTransportException if the transport refuses the call */
        void submit() throws RdmaTransportException;
    }

    private CallSend() {
    }

    /**
     * @param length     the call's length, for the handler
     * @param submit     hands it to the transport
     * @param attachment the handler's attachment
     * @param handler    oncrpc4j's send handler
     * @param <A>        the attachment's type
     */
    static <A> void send(int length, Submit submit, A attachment, CompletionHandler<Integer, ? super A> handler) {
        try {
            submit.submit();
            handler.completed(length, attachment);
        } catch (RdmaTransportException e) {
            handler.failed(e, attachment);
        }
    }
}
