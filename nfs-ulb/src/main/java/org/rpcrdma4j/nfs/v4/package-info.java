/** The RPC-over-RDMA binding of NFS version 4 (RFC 8267 §5): the COMPOUND walk. */
package org.rpcrdma4j.nfs.v4;
