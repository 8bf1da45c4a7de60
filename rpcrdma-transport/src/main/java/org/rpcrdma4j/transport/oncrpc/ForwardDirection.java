package org.rpcrdma4j.transport.oncrpc;

import java.net.InetSocketAddress;
import org.dcache.oncrpc4j.rpc.RpcAuthError;
import org.dcache.oncrpc4j.rpc.RpcAuthException;
import org.dcache.oncrpc4j.rpc.RpcAuthStat;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.rpcrdma4j.transport.conn.Connection;

/**
 * What both ends' forward-direction transports share: the connection's state and addresses, seen
 * from their side, and the answer to TLS.
 */
abstract class ForwardDirection implements RpcTransport {

    /** @return the connection, or {@code null} while it is being set up */
    abstract Connection connection();

    @Override
    public final boolean isOpen() {
        Connection current = connection();
        return current != null && current.state() == Connection.State.CONNECTED;
    }

    @Override
    public final InetSocketAddress getLocalSocketAddress() {
        return connection().localSocketAddress();
    }

    @Override
    public final InetSocketAddress getRemoteSocketAddress() {
        return connection().remoteSocketAddress();
    }

    /**
     * Refuses TLS as oncrpc4j does without its TLS filter: an AUTH_ERROR the caller answers with.
     *
     * @throws RpcAuthException always
     */
    @Override
    public final void startTLS() throws RpcAuthException {
        throw new RpcAuthException("TLS is not available over RPC-over-RDMA",
                new RpcAuthError(RpcAuthStat.AUTH_REJECTEDCRED));
    }

    @Override
    public final boolean isTLS() {
        return false;
    }
}
