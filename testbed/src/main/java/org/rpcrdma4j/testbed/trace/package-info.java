/**
 * Reading captures of real RPC-over-RDMA traffic (pcap files of RoCEv2), for decoding them and, later,
 * replaying them against rpcrdma4j for conformance with Linux.
 */
package org.rpcrdma4j.testbed.trace;
