/**
 * The RPC-over-RDMA Version One transport header (RFC 8166) as data: the record model
 * ({@link org.rpcrdma4j.xdr.RpcRdmaHeader} and its chunks), the {@link org.rpcrdma4j.xdr.HeaderEncoder},
 * the strict {@link org.rpcrdma4j.xdr.HeaderDecoder} with its allocation-free
 * {@link org.rpcrdma4j.xdr.RpcRdmaHeaderFlyweight}, the {@link org.rpcrdma4j.xdr.Rule}s a received header
 * must keep and the answer a responder gives when one is broken, XDR round-up and stream reduction,
 * and RFC 8797 connection private data.
 *
 * <p>Knows nothing of sockets, threads, oncrpc4j or EFA. All values keep their wire bits: u32 fields
 * are {@code int}s and u64 fields {@code long}s, widened by the caller where arithmetic needs it.
 */
package org.rpcrdma4j.xdr;
