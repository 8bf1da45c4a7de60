/**
 * RPC-over-RDMA Version One (RFC 8166) connections for oncrpc4j programs, with backward calls on
 * the same connection (RFC 8167): the fabric seam, the transport configuration and the transport's
 * exception.
 *
 * <h2>The fabric seam</h2>
 * {@link org.rpcrdma4j.transport.Fabric} is all the transport asks of a fabric: post a receive
 * buffer, send a message, register local memory, RDMA Read and RDMA Write (RFC 8166 §3.4), name
 * peers, and run work on the fabric's single progress thread.
 * {@link org.rpcrdma4j.transport.DdpPolicy} is what it asks of a program's upper-layer binding.
 *
 * <h2>Packages</h2>
 * {@code .marshal} decides how calls and replies travel (inline, Read, Write and Reply chunks);
 * {@code .rw} moves chunk data by RDMA Read and Write; {@code .conn} holds connections, credits and
 * the control-tag exchange of RFC 8797 private data, and tells forward from backward messages;
 * {@code .efa} implements the seam over the EFA endpoint (and is the only importer of
 * {@code org.rpcrdma4j.efa}); {@code .oncrpc} bridges to oncrpc4j: a server hosting
 * {@code RpcDispatchable} programs, which may call back through the peer transport, and a client
 * {@code RpcTransport} that serves callback programs.
 */
package org.rpcrdma4j.transport;
