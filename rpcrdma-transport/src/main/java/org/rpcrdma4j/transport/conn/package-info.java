/**
 * RPC-over-RDMA connections over a {@link org.rpcrdma4j.fabric.Fabric}'s connections, whichever
 * kind the fabric is: each with credits (RFC 8166 §3.3.1) and inline thresholds (§3.3.2) agreed from
 * the RFC 8797 private data the fabric exchanged when it set the connection up.
 *
 * <p>Each connection also carries backward calls (RFC 8167), from the responder to the requester:
 * inline only, with backward credits accounted apart from the forward ones
 * ({@link org.rpcrdma4j.transport.conn.BackwardCalls} on the responder's side), and told from forward
 * messages by the RPC message type ({@link org.rpcrdma4j.transport.conn.RpcDirection}). The requester
 * hands backward calls to a {@link org.rpcrdma4j.transport.conn.BackwardCallHandler} and answers them
 * with {@link org.rpcrdma4j.transport.conn.Requester#backwardReply}; the responder hands the answers
 * to a {@link org.rpcrdma4j.transport.conn.BackwardReplyHandler}.
 *
 * <p>{@link org.rpcrdma4j.transport.conn.Requester} is the client side and
 * {@link org.rpcrdma4j.transport.conn.Responder} the server side, which hands its replies to
 * {@code ReplySender} and its backward calls to {@code BackwardRequester}. Each connection's
 * receives go through a {@code ConnectionEvents}, the receive router both roles share: the
 * transport header is checked once, the message routed, the buffer posted again. Both run on the
 * fabric's progress thread; other threads reach them only through methods documented as thread-safe, which hand work
 * to the progress thread with {@link org.rpcrdma4j.fabric.Fabric#execute}. Calls and replies are
 * marshalled by {@code org.rpcrdma4j.transport.marshal}; chunk data moves by
 * {@code org.rpcrdma4j.transport.rw}.
 */
package org.rpcrdma4j.transport.conn;
