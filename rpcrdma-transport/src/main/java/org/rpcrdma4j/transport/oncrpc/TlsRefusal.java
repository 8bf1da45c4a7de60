package org.rpcrdma4j.transport.oncrpc;

import org.dcache.oncrpc4j.rpc.RpcAuthError;
import org.dcache.oncrpc4j.rpc.RpcAuthException;
import org.dcache.oncrpc4j.rpc.RpcAuthStat;

/**
 * The answer to {@code startTLS} on both sides of a connection: TLS is refused as oncrpc4j refuses it
 * without its TLS filter, with an AUTH_ERROR the caller answers with.
 */
final class TlsRefusal {

    private TlsRefusal() {
    }

    /** @return the exception {@code startTLS} throws */
    static RpcAuthException exception() {
        return new RpcAuthException("TLS is not available over RPC-over-RDMA",
                new RpcAuthError(RpcAuthStat.AUTH_REJECTEDCRED));
    }
}
