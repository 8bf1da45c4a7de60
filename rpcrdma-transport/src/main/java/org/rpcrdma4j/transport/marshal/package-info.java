/**
 * Marshalling (RFC 8166 §3.4–§3.5), the counterpart of Linux {@code rpc_rdma.c} (requester) and
 * {@code svc_rdma_sendto.c} (responder): {@link org.rpcrdma4j.transport.marshal.CallPlan} decides
 * how a call travels and which chunks its reply gets, {@link org.rpcrdma4j.transport.marshal.ChunkedCall}
 * holds a sent call's registered memory until its answer,
 * {@link org.rpcrdma4j.transport.marshal.ReplySplicer} rebuilds a reply from its Reply chunk and Write
 * chunks, and {@link org.rpcrdma4j.transport.marshal.ReplyPlan} decides how a reply travels.
 * The {@link org.rpcrdma4j.transport.DdpPolicy} of the program says which items are DDP-eligible.
 */
package org.rpcrdma4j.transport.marshal;
