package org.rpcrdma4j.transport.oncrpc;

import java.net.InetSocketAddress;
import org.dcache.oncrpc4j.rpc.RpcAuthException;
import org.dcache.oncrpc4j.rpc.RpcTransport;

/**
 * What both ends' backward-direction transports (RFC 8167) share: they are the same connection as the
 * forward transport, so its addresses, state and TLS answer are theirs, and it is their peer.
 */
abstract class BackwardDirection implements RpcTransport {

    /** The forward direction's transport of the same connection. */
    final RpcTransport forward;

    BackwardDirection(RpcTransport forward) {
        this.forward = forward;
    }

    @Override
    public final boolean isOpen() {
        return forward.isOpen();
    }

    @Override
    public final InetSocketAddress getLocalSocketAddress() {
        return forward.getLocalSocketAddress();
    }

    @Override
    public final InetSocketAddress getRemoteSocketAddress() {
        return forward.getRemoteSocketAddress();
    }

    /** @return the forward direction's transport of the same connection */
    @Override
    public final RpcTransport getPeerTransport() {
        return forward;
    }

    @Override
    public final void startTLS() throws RpcAuthException {
        forward.startTLS();
    }

    @Override
    public final boolean isTLS() {
        return false;
    }
}
