/**
 * The transport's fabric on RC queue pairs and RDMA-CM ({@code org.rpcrdma4j.fabric.rc}), the one the
 * Linux kernel's NFS/RDMA client and server speak, found by the name {@code verbs}, and on a simulated
 * RC network in the JVM, found by the name {@code rc-sim}. On the module path the {@code verbs} fabric
 * needs {@code --enable-native-access=org.rpcrdma4j.verbs}.
 */
module org.rpcrdma4j.fabric.rc {
    requires transitive org.rpcrdma4j.transport;
    requires org.rpcrdma4j.verbs;
    requires org.slf4j;

    exports org.rpcrdma4j.fabric.rc;

    provides org.rpcrdma4j.fabric.FabricProvider with org.rpcrdma4j.fabric.rc.RcFabricProvider,
            org.rpcrdma4j.fabric.rc.RcSimFabricProvider;
}
