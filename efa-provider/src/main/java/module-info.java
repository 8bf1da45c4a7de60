/**
 * The AWS EFA RDM protocol v4: a libfabric-style endpoint ({@code org.rpcrdma4j.efa}) over the
 * {@code Device} SPI ({@code org.rpcrdma4j.efa.device}), the simulated device
 * ({@code org.rpcrdma4j.efa.device.sim}), the UDP device
 * ({@code org.rpcrdma4j.efa.device.udp}, on Netty) and the packet codecs ({@code org.rpcrdma4j.efa.wire}). The
 * protocol engine behind the endpoint ({@code org.rpcrdma4j.efa.endpoint}) is not exported.
 */
module org.rpcrdma4j.efa {
    requires org.slf4j;
    requires io.netty.buffer;
    requires io.netty.common;
    requires io.netty.transport;
    requires io.netty.transport.classes.epoll;

    exports org.rpcrdma4j.efa;
    exports org.rpcrdma4j.efa.device;
    exports org.rpcrdma4j.efa.device.sim;
    exports org.rpcrdma4j.efa.device.udp;
    exports org.rpcrdma4j.efa.wire;

    uses org.rpcrdma4j.efa.device.DeviceProvider;

    provides org.rpcrdma4j.efa.device.DeviceProvider with org.rpcrdma4j.efa.device.udp.UdpDeviceProvider;
}
