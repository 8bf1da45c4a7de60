/**
 * The AWS EFA RDM protocol v4, the wire protocol of libfabric's EFA provider: packet codecs, peers
 * and the handshake, the two-sided and one-sided subprotocols, memory registration, a libfabric-style
 * endpoint API, and the {@code Device} SPI with a simulated, a UDP and a verbs-backed device.
 *
 * <p>Knows nothing of RPC, XDR or NFS. Not implemented yet: see the issue tracker.
 */
package org.rpcrdma4j.efa;
