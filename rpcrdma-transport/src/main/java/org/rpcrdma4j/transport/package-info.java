/**
 * RPC-over-RDMA Version One connections over the EFA endpoint: credits, inline thresholds, chunked
 * calls and replies, RDMA_ERROR handling, the RFC 8167 backchannel, and the bridge into oncrpc4j
 * (an {@code RpcTransport}, a server hosting {@code RpcDispatchable} programs, a client).
 *
 * <p>Which RPC program runs on top is not its business: it asks a {@code DdpPolicy}. Not implemented
 * yet: see the issue tracker.
 */
package org.rpcrdma4j.transport;
