/**
 * RPC-over-RDMA Version One (RFC 8166) connections for oncrpc4j programs: the fabric seam, the
 * transport configuration and the transport's exception.
 *
 * <h2>The fabric seam</h2>
 * {@link org.rpcrdma4j.transport.Fabric} is all the transport asks of a fabric. It declares only
 * what inline messaging uses: post a receive buffer, send a message, name peers, and run work on the
 * fabric's single progress thread. RDMA Read, RDMA Write and memory registration join the seam with
 * chunk support (RFC 8166 §3.4); until then a message that does not fit inline fails with
 * {@link org.rpcrdma4j.transport.RdmaTransportException.Scope#CALL}.
 *
 * <h2>Packages</h2>
 * {@code .conn} holds connections, credits and the control-tag exchange of RFC 8797 private data;
 * {@code .efa} implements the seam over the EFA endpoint (and is the only importer of
 * {@code org.rpcrdma4j.efa}); {@code .oncrpc} bridges to oncrpc4j: a server hosting
 * {@code RpcDispatchable} programs and a client {@code RpcTransport}.
 */
package org.rpcrdma4j.transport;
