/**
 * Reading captures of real RPC-over-RDMA traffic (pcap files of RoCEv2) and replaying them against
 * rpcrdma4j for conformance with Linux: {@link org.rpcrdma4j.testbed.trace.Capture} finds the RDMA
 * connections and, per connection, the Sends, RDMA Writes and Reads and the RFC 8797 private data,
 * {@link org.rpcrdma4j.testbed.trace.CallReplyPairs} pairs calls with replies,
 * {@link org.rpcrdma4j.testbed.trace.RpcStreams} rebuilds their RPC messages, and
 * {@link org.rpcrdma4j.testbed.trace.Replay} checks each with
 * {@link org.rpcrdma4j.testbed.trace.RequesterConformance} and
 * {@link org.rpcrdma4j.testbed.trace.ResponderConformance} (docs/CONFORMANCE.md).
 */
package org.rpcrdma4j.testbed.trace;
