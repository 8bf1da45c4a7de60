/**
 * Capturing what rpcrdma4j sends and receives on any fabric as a pcap file of RoCEv2 frames, which
 * tshark's RPC-over-RDMA and NFS dissectors, {@code testbed replay} and {@code testbed decode pcap} read:
 * {@link org.rpcrdma4j.testbed.capture.CapturingProvider} puts each fabric it opens behind a
 * {@code CapturingFabric}, at the transport's fabric seam, which hands each message and RDMA operation to
 * the file's {@link org.rpcrdma4j.testbed.capture.RoceCapture}.
 */
package org.rpcrdma4j.testbed.capture;
