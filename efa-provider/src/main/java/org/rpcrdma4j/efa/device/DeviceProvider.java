package org.rpcrdma4j.efa.device;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * A kind of {@link Device} that opens on an address of this host (its GID and QPN), found by its name through
 * {@link ServiceLoader}: how a tool opens a device whose module it does not compile against, such as the verbs
 * device, which needs JDK 22. efa-provider provides {@code udp}; efa-verbs provides {@code verbs}. The simulated
 * device is not one: its devices live in a simulated network of one process, not on an address.
 */
public interface DeviceProvider {

    /** @return the name tools take, e.g. {@code udp} */
    String name();

    /** @return one line on what the device runs over */
    String description();

    /**
     * Opens a device with its defaults.
     *
     * @param bind the address of this host to open on; port 0 for any free one
     * @return the open device, which the caller closes
     * @throws IOException if the device cannot open there (no such address, no RDMA device, a library missing)
     */
    Device open(InetSocketAddress bind) throws IOException;

    /**
     * @param name a provider's name
     * @return the provider of that name on the class or module path
     */
    static Optional<DeviceProvider> find(String name) {
        return ServiceLoader.load(DeviceProvider.class).stream().map(ServiceLoader.Provider::get)
                .filter(provider -> provider.name().equals(name)).findFirst();
    }

    /** @return the names of the providers on the class or module path */
    static List<String> names() {
        return ServiceLoader.load(DeviceProvider.class).stream().map(ServiceLoader.Provider::get)
                .map(DeviceProvider::name).sorted().toList();
    }
}
