package org.rpcrdma4j.fabric;

import java.util.Objects;

/**
 * What a {@link FabricProvider} opens a fabric with.
 *
 * @param listen where the fabric accepts connections, as its users write it (the RC fabric: the RDMA
 *               device's IP address and a port, {@code ADDRESS[:PORT]}); {@code null} for a fabric
 *               that only connects, or one that has an address of its own (the simulated EFA network)
 * @param seed   the seed of a simulated fabric's network; fabrics of real devices ignore it
 * @param deviceProfile the RDMA the fabric's device may do; a provider refuses one it does not list in
 *               {@link FabricProvider#deviceProfiles()}
 */
public record FabricOptions(String listen, long seed, DeviceProfile deviceProfile) {

    /**
     * A fabric that only connects, or has an address of its own, with seed 1, on a device with RDMA read and
     * write.
     */
    public static final FabricOptions DEFAULT = new FabricOptions(null, 1, DeviceProfile.READ_WRITE);

    /** Checks the profile is there. */
    public FabricOptions {
        Objects.requireNonNull(deviceProfile, "deviceProfile");
    }

    /**
     * @param address as {@code listen}
     * @return these options, listening there
     */
    public FabricOptions listening(String address) {
        return new FabricOptions(address, seed, deviceProfile);
    }

    /**
     * @param value as {@code seed}
     * @return these options with that seed
     */
    public FabricOptions withSeed(long value) {
        return new FabricOptions(listen, value, deviceProfile);
    }

    /**
     * @param value as {@code deviceProfile}
     * @return these options with that device profile
     */
    public FabricOptions withDeviceProfile(DeviceProfile value) {
        return new FabricOptions(listen, seed, value);
    }
}
