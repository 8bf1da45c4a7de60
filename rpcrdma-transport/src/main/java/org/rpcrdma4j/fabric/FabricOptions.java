package org.rpcrdma4j.fabric;

/**
 * What a {@link FabricProvider} opens a fabric with.
 *
 * @param listen where the fabric accepts connections, as its users write it (the RC fabric: the RDMA
 *               device's IP address and a port, {@code ADDRESS[:PORT]}); {@code null} for a fabric
 *               that only connects, or one that has an address of its own (the simulated EFA network)
 * @param seed   the seed of a simulated fabric's network; fabrics of real devices ignore it
 */
public record FabricOptions(String listen, long seed) {

    /** A fabric that only connects, or has an address of its own, with seed 1. */
    public static final FabricOptions DEFAULT = new FabricOptions(null, 1);

    /**
     * @param address as {@code listen}
     * @return these options, listening there
     */
    public FabricOptions listening(String address) {
        return new FabricOptions(address, seed);
    }

    /**
     * @param value as {@code seed}
     * @return these options with that seed
     */
    public FabricOptions withSeed(long value) {
        return new FabricOptions(listen, value);
    }
}
