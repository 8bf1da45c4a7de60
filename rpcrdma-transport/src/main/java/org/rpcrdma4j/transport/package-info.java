/**
 * RPC-over-RDMA Version One (RFC 8166) connections for oncrpc4j programs, with backward calls on
 * the same connection (RFC 8167): the fabric seam, the transport configuration and the transport's
 * exception.
 *
 * <h2>The fabric seam</h2>
 * {@link org.rpcrdma4j.fabric.Fabric} is all the transport asks of a fabric: connect and accept
 * with RFC 8797 private data, register local memory, and run work on the fabric's single progress
 * thread; on each {@link org.rpcrdma4j.fabric.FabricConnection}, post a receive buffer, send a
 * message, RDMA Read and RDMA Write (RFC 8166 §3.4), and hear of each completion, with a typed
 * {@link org.rpcrdma4j.fabric.FabricStatus} that says what a failure takes down, and of the
 * connection's end. A connectionless fabric (EFA RDM) and a connection-oriented one (verbs RC with
 * RDMA-CM) both fit behind it.
 * {@link org.rpcrdma4j.transport.DdpPolicy} is what it asks of a program's upper-layer binding.
 *
 * <h2>Packages</h2>
 * {@code .marshal} decides how calls and replies travel (inline, Read, Write and Reply chunks);
 * {@code .rw} queues a connection's sends and RDMA and moves chunk data by RDMA Read and Write;
 * {@code .conn} holds connections and credits and tells forward from backward messages;
 * {@code .efa} implements the seam over the EFA endpoint (and is the only importer of
 * {@code org.rpcrdma4j.efa}); {@code .oncrpc} bridges to oncrpc4j: a server hosting
 * {@code RpcDispatchable} programs, which may call back through the peer transport, and a client
 * {@code RpcTransport} that serves callback programs.
 */
package org.rpcrdma4j.transport;
