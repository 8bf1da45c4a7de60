/** The NFS upper-layer binding of RPC-over-RDMA (RFC 8267): DDP policies for NFSv2, v3, v4 and NFSACL. */
module org.rpcrdma4j.nfs {
    requires transitive org.rpcrdma4j.transport;

    exports org.rpcrdma4j.nfs;
    exports org.rpcrdma4j.nfs.acl;
    exports org.rpcrdma4j.nfs.v2;
    exports org.rpcrdma4j.nfs.v3;
    exports org.rpcrdma4j.nfs.v4;
}
