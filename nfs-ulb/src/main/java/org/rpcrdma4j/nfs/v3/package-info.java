/** The RPC-over-RDMA binding of NFS version 3 (RFC 8267 §3). */
package org.rpcrdma4j.nfs.v3;
