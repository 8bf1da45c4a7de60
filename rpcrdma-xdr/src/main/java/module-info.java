/**
 * The RPC-over-RDMA Version One header (RFC 8166) as data, its encoder and strict decoder, and the
 * RFC 8797 connection private data.
 */
module org.rpcrdma4j.xdr {
    exports org.rpcrdma4j.xdr;
}
