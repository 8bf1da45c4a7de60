/** The RPC-over-RDMA binding of NFSACL version 3, the POSIX ACL side protocol of NFSv3. */
package org.rpcrdma4j.nfs.acl;
