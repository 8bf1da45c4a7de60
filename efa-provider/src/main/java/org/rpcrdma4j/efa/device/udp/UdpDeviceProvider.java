package org.rpcrdma4j.efa.device.udp;

import java.io.IOException;
import java.net.InetSocketAddress;
import org.rpcrdma4j.efa.device.Device;
import org.rpcrdma4j.efa.device.DeviceProvider;

/** The device named {@code udp}: a {@link UdpDevice} bound to the address given, with its defaults. */
public final class UdpDeviceProvider implements DeviceProvider {

    /** What {@link java.util.ServiceLoader} makes; it opens nothing. */
    public UdpDeviceProvider() {
    }

    @Override
    public String name() {
        return "udp";
    }

    @Override
    public String description() {
        return "SRD semantics over UDP datagrams, between processes and hosts";
    }

    @Override
    public Device open(InetSocketAddress bind) throws IOException {
        return UdpDevice.open(UdpDeviceConfig.builder().withBindAddress(bind).build());
    }
}
