/**
 * RPC-over-RDMA for oncrpc4j: the transport's configuration and statistics
 * ({@code org.rpcrdma4j.transport}), the fabric SPI that fabric modules implement and the lookup of
 * fabrics by name ({@code org.rpcrdma4j.fabric}), and the oncrpc4j server and client
 * ({@code org.rpcrdma4j.transport.oncrpc}). It depends on no fabric. Connections, marshalling and
 * RDMA work queues ({@code conn}, {@code marshal}, {@code rw}) are not exported.
 *
 * <p>oncrpc4j ({@code org.dcache.oncrpc4j}, from its manifest) and Grizzly ({@code grizzly.framework},
 * derived from its jar's name) have no module descriptors: on the module path they are automatic
 * modules.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module org.rpcrdma4j.transport {
    requires transitive org.rpcrdma4j.xdr;
    requires transitive org.dcache.oncrpc4j;
    requires grizzly.framework;
    requires org.slf4j;
    // CallStepEvent: JFR marks of each step of a call; disabled unless a recording enables them.
    requires jdk.jfr;

    exports org.rpcrdma4j.transport;
    exports org.rpcrdma4j.fabric;
    exports org.rpcrdma4j.transport.oncrpc;

    uses org.rpcrdma4j.fabric.FabricProvider;
}
