/**
 * The NFS upper-layer binding for RPC-over-RDMA (RFC 8267): which XDR items of NFS calls and replies
 * are DDP-eligible and how large replies can grow, as {@link org.rpcrdma4j.transport.DdpPolicy}
 * implementations ({@link org.rpcrdma4j.nfs.NfsDdpPolicy}) for NFS versions 3 and 4 and for NFSACL
 * version 3. The NFSv4.1 backchannel binding is to come.
 */
package org.rpcrdma4j.nfs;
