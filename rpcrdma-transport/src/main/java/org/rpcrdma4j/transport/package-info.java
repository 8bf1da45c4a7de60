/**
 * RPC-over-RDMA Version One (RFC 8166) connections for oncrpc4j programs, with backward calls on
 * the same connection (RFC 8167): the transport configuration, statistics and exception, and
 * {@link org.rpcrdma4j.transport.DdpPolicy}, what the transport asks of a program's upper-layer
 * binding. The fabric it runs on is behind the SPI of {@code org.rpcrdma4j.fabric}.
 *
 * <h2>Packages</h2>
 * {@code .marshal} decides how calls and replies travel (inline, Read, Write and Reply chunks);
 * {@code .rw} queues a connection's sends and RDMA and moves chunk data by RDMA Read and Write;
 * {@code .conn} holds connections and credits and tells forward from backward messages;
 * {@code .oncrpc} bridges to oncrpc4j: a server hosting
 * {@code RpcDispatchable} programs, which may call back through the peer transport, and a client
 * {@code RpcTransport} that serves callback programs.
 */
package org.rpcrdma4j.transport;
