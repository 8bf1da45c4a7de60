/**
 * The EFA RDM endpoint's {@link org.rpcrdma4j.efa.device.Device} SPI on a RoCE or InfiniBand NIC
 * ({@link org.rpcrdma4j.efa.device.verbs.VerbsDevice}): one RC queue pair per peer, set up on demand by
 * RDMA-CM, every peer's messages landing in one shared receive queue, each answered with the
 * receiver's verdict, so that the SPI's datagram semantics (exactly once, receiver-not-ready reported
 * to the sender, peers named by GID, QPN and Q-Key) hold over connections. The device drives the NIC
 * through the package-private {@code RcNic} seam. On an EFA NIC,
 * {@link org.rpcrdma4j.efa.device.verbs.EfaSrdDevice} maps the SPI one to one onto an SRD queue pair,
 * which gives those semantics itself, through the {@code SrdNic} seam (untested on hardware: no EFA NIC
 * here). docs/ARCHITECTURE.md, "The verbs device", says what each guarantees and how, and what is not
 * done yet.
 */
package org.rpcrdma4j.efa.device.verbs;
