package org.rpcrdma4j.fabric.efa;

import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.rpcrdma4j.efa.device.sim.SimDeviceConfig;
import org.rpcrdma4j.fabric.DeviceProfile;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.fabric.FabricOptions;
import org.rpcrdma4j.fabric.FabricProvider;

/**
 * The fabric named {@code sim}: EFA RDM endpoints on simulated devices. Fabrics opened with the same
 * seed are on one {@link SimulatedEfa} network and reach each other; nothing outside this JVM reaches
 * them. Each network lives as long as the JVM (its progress thread, a daemon, parks while nothing moves);
 * a test that wants its own network, faults or device settings builds a {@link SimulatedEfa} itself.
 */
public final class SimFabricProvider implements FabricProvider {

    /** The networks opened so far, by seed. */
    private static final Map<Long, SimulatedEfa> NETWORKS = new HashMap<>();

    /** What {@link java.util.ServiceLoader} makes; it opens nothing. */
    public SimFabricProvider() {
    }

    @Override
    public String name() {
        return "sim";
    }

    @Override
    public String description() {
        return "EFA RDM endpoints on the simulated EFA device, reachable from this JVM only";
    }

    @Override
    public boolean needsListenAddress() {
        return false;
    }

    /** @return every profile: the simulated device has the capabilities it is given */
    @Override
    public Set<DeviceProfile> deviceProfiles() {
        return EnumSet.allOf(DeviceProfile.class);
    }

    /**
     * Opens a fabric on a simulated device of the default configuration with the capabilities of the
     * options' {@link FabricOptions#deviceProfile() device profile}.
     *
     * @throws IllegalArgumentException if given a listening address: each fabric has an address of its own
     */
    @Override
    public Fabric open(FabricOptions options) {
        if (options.listen() != null) {
            throw new IllegalArgumentException("a simulated fabric takes no listening address: each has its own, "
                    + "its localAddress()");
        }
        SimulatedEfa network;
        synchronized (NETWORKS) {
            network = NETWORKS.computeIfAbsent(options.seed(), SimulatedEfa::start);
        }
        return network.newFabric(SimDeviceConfig.DEFAULT.withCapabilities(
                DeviceCapabilities.of(options.deviceProfile())));
    }

    /** @throws IllegalArgumentException always: a simulated fabric's address cannot be written down */
    @Override
    public FabricAddress peer(String text) {
        throw new IllegalArgumentException("a simulated fabric's listener is reached from this JVM only, by its "
                + "localAddress(), not by text such as " + text);
    }
}
