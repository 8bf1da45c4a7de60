/**
 * The bridge into oncrpc4j, which has no transport SPI: {@link org.rpcrdma4j.transport.oncrpc.RdmaRpcSvc}
 * hosts {@code RpcDispatchable} programs (what nfs4j's servers are) with oncrpc4j's own dispatch
 * semantics, and {@link org.rpcrdma4j.transport.oncrpc.RdmaRpcClient} gives oncrpc4j client code an
 * {@code RpcTransport} for {@code new RpcCall(prog, vers, auth, transport)}.
 *
 * <p>Threads: the fabric's progress thread decodes calls and replies and never waits; programs run on
 * the worker executor; client reply handlers run on the client's executor. TLS and RPCSEC_GSS are
 * refused. Chunks follow each program's {@code DdpPolicy}; the backchannel (RFC 8167) is not
 * implemented yet.
 */
package org.rpcrdma4j.transport.oncrpc;
