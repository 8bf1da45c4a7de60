/** The RPC-over-RDMA binding of NFS version 2 (RFC 8267 §3, procedures of RFC 1094). */
package org.rpcrdma4j.nfs.v2;
