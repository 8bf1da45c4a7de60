/**
 * A small NFSv3 + MOUNT v3 <em>test service</em> over a local directory, and a client helper, both written against
 * oncrpc4j's API ({@link org.dcache.oncrpc4j.rpc.RpcDispatchable}, {@link org.dcache.oncrpc4j.xdr.XdrAble}).
 *
 * <p><strong>This is a test service, not a product.</strong> nfs4j is not on Maven Central, so the testbed carries
 * just enough of RFC 1813 to drive realistic NFSv3 traffic over any oncrpc4j {@link
 * org.dcache.oncrpc4j.rpc.RpcTransport} (TCP today, RPC-over-RDMA later). It has no security model beyond the
 * server process's own file permissions (credentials are not mapped), no locking (NLM), no special files (MKNOD
 * answers {@code NFS3ERR_NOTSUPP}), no duplicate request cache, and file handles that are only valid for the
 * lifetime of one service instance. Names and link targets are bytes end to end, and the attributes are the file
 * system's own; what java.nio on Java 17 cannot see is named in {@link org.rpcrdma4j.testbed.nfs.Nfs3Service}.
 *
 * <ul>
 *   <li>{@link org.rpcrdma4j.testbed.nfs.Nfs3Service}: program 100003 version 3 (RFC 1813 section 3).</li>
 *   <li>{@link org.rpcrdma4j.testbed.nfs.MountService}: program 100005 version 3 (RFC 1813 Appendix I).</li>
 *   <li>{@link org.rpcrdma4j.testbed.nfs.FileHandles}: opaque, stable handles that never escape the export root.</li>
 *   <li>{@link org.rpcrdma4j.testbed.nfs.SymlinkTargets}: real symbolic links whose targets read back byte for byte,
 *       with a side store for the targets java.nio cannot write exactly; {@code PathBytes}: the bytes of local
 *       paths.</li>
 *   <li>{@link org.rpcrdma4j.testbed.nfs.Nfs3Types}, {@link org.rpcrdma4j.testbed.nfs.Nfs3Args}, {@link
 *       org.rpcrdma4j.testbed.nfs.Nfs3Results}, {@link org.rpcrdma4j.testbed.nfs.MountXdr}: the XDR types, each
 *       encoding and decoding so that server and client share them.</li>
 *   <li>{@link org.rpcrdma4j.testbed.nfs.Nfs3Client}: mount, walk, read and write through {@code RpcCall}.</li>
 * </ul>
 */
package org.rpcrdma4j.testbed.nfs;
