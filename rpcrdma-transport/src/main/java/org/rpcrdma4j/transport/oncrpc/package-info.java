/**
 * The bridge into oncrpc4j, which has no transport SPI: {@link org.rpcrdma4j.transport.oncrpc.RdmaRpcSvc}
 * hosts {@code RpcDispatchable} programs (what nfs4j's servers are) with oncrpc4j's own dispatch
 * semantics, and {@link org.rpcrdma4j.transport.oncrpc.RdmaRpcClient} gives oncrpc4j client code an
 * {@code RpcTransport} for {@code new RpcCall(prog, vers, auth, transport)}.
 *
 * <p>Backchannel (RFC 8167): a server program calls the client back with
 * {@code new RpcCall(cbProg, cbVers, auth, call.getTransport().getPeerTransport())}
 * ({@link org.rpcrdma4j.transport.oncrpc.BackwardTransport}); the client serves such calls with the
 * callback services given to
 * {@link org.rpcrdma4j.transport.oncrpc.RdmaRpcClient#registerCallbackService} and replies through
 * its {@link org.rpcrdma4j.transport.oncrpc.CallbackTransport}. Backward messages are inline only.
 *
 * <p>Threads: the fabric's progress thread decodes calls and replies and never waits; programs run on
 * the worker executor; answers to calls are delivered ({@link org.rpcrdma4j.transport.oncrpc.ReplyDelivery})
 * on a single thread of the client's, or of the service's for backward calls, never on a worker, so
 * a program may wait for a backward call; callback services run on the client's callback threads.
 * TLS and RPCSEC_GSS are refused. Chunks follow each program's {@code DdpPolicy}.
 */
package org.rpcrdma4j.transport.oncrpc;
