/**
 * The EFA RDM endpoint's {@code Device} SPI on verbs ({@code org.rpcrdma4j.efa.device.verbs}): on RoCE
 * and InfiniBand, one RC queue pair per peer set up on demand by RDMA-CM behind the SPI's datagram
 * addressing; on an EFA NIC, one SRD queue pair through libefa (untested on hardware). On the module
 * path it needs {@code --enable-native-access=org.rpcrdma4j.verbs}.
 */
module org.rpcrdma4j.efa.verbs {
    requires transitive org.rpcrdma4j.efa;
    requires org.rpcrdma4j.verbs;
    requires org.slf4j;

    exports org.rpcrdma4j.efa.device.verbs;

    provides org.rpcrdma4j.efa.device.DeviceProvider with org.rpcrdma4j.efa.device.verbs.VerbsDeviceProvider;
}
