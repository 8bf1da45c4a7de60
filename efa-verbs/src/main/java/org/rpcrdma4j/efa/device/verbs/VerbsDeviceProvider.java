package org.rpcrdma4j.efa.device.verbs;

import java.io.IOException;
import java.net.InetSocketAddress;
import org.rpcrdma4j.efa.device.Device;
import org.rpcrdma4j.efa.device.DeviceProvider;

/**
 * The device named {@code verbs}: a {@link VerbsDevice} on the RDMA device that has the address given, listening
 * there with RDMA-CM, with its defaults.
 */
public final class VerbsDeviceProvider implements DeviceProvider {

    /** What {@link java.util.ServiceLoader} makes; it opens nothing. */
    public VerbsDeviceProvider() {
    }

    @Override
    public String name() {
        return "verbs";
    }

    @Override
    public String description() {
        return "RC queue pairs per peer on an RDMA device (RoCE, InfiniBand), between hosts";
    }

    @Override
    public Device open(InetSocketAddress bind) throws IOException {
        return VerbsDevice.open(VerbsDeviceConfig.on(bind));
    }
}
