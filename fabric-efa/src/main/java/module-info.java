/**
 * The transport's fabric on the EFA RDM endpoint ({@code org.rpcrdma4j.fabric.efa}): on the simulated
 * EFA network, found by the name {@code sim}, and on the UDP device, found by the name {@code udp}.
 */
module org.rpcrdma4j.fabric.efa {
    requires transitive org.rpcrdma4j.transport;
    requires transitive org.rpcrdma4j.efa;
    requires org.slf4j;

    exports org.rpcrdma4j.fabric.efa;

    provides org.rpcrdma4j.fabric.FabricProvider
            with org.rpcrdma4j.fabric.efa.SimFabricProvider, org.rpcrdma4j.fabric.efa.UdpFabricProvider;
}
