/**
 * The transport's fabric on the EFA RDM endpoint, with the simulated EFA network
 * ({@code org.rpcrdma4j.fabric.efa}), found by the name {@code sim}.
 */
module org.rpcrdma4j.fabric.efa {
    requires transitive org.rpcrdma4j.transport;
    requires transitive org.rpcrdma4j.efa;
    requires org.slf4j;

    exports org.rpcrdma4j.fabric.efa;

    provides org.rpcrdma4j.fabric.FabricProvider with org.rpcrdma4j.fabric.efa.SimFabricProvider;
}
