/**
 * The fabric named {@code efa-verbs} ({@code org.rpcrdma4j.fabric.efa.verbs}): the transport's EFA
 * fabric on the verbs device, so the EFA RDM protocol runs between hosts over RoCE or InfiniBand. On
 * the module path it needs {@code --enable-native-access=org.rpcrdma4j.verbs}.
 */
module org.rpcrdma4j.fabric.efa.verbs {
    requires org.rpcrdma4j.fabric.efa;
    requires org.rpcrdma4j.efa.verbs;
    requires org.rpcrdma4j.verbs;

    exports org.rpcrdma4j.fabric.efa.verbs;

    provides org.rpcrdma4j.fabric.FabricProvider with org.rpcrdma4j.fabric.efa.verbs.EfaVerbsFabricProvider;
}
