/**
 * The NFS upper-layer binding for RPC-over-RDMA (RFC 8267): which XDR items of NFS calls and replies
 * are DDP-eligible and how large replies can grow, as {@link org.rpcrdma4j.transport.DdpPolicy}
 * implementations ({@link org.rpcrdma4j.nfs.NfsDdpPolicy}) for NFS versions 2, 3 and 4 and for
 * NFSACL version 3.
 *
 * <p>The NFSv4.1 backchannel needs no policy: CB_NULL and CB_COMPOUND carry no DDP-eligible item and
 * travel inline within the backward inline threshold (RFC 8267), which is the only way the
 * transport's backward direction (RFC 8167) carries anything.
 */
package org.rpcrdma4j.nfs;
