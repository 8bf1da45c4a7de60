/**
 * The NFS upper-layer binding for RPC-over-RDMA (RFC 8267): which XDR items of NFS calls and replies
 * are DDP-eligible, how large replies can grow, and the NFSv4.1 backchannel binding.
 *
 * <p>Not implemented yet: see the issue tracker.
 */
package org.rpcrdma4j.nfs;
