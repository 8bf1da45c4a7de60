package org.rpcrdma4j.fabric;

import java.util.Set;

/**
 * A fabric module's entry point: opens fabrics of one kind, found by its name with
 * {@link Fabrics#named}. A fabric module declares its provider with {@code provides} in its module
 * descriptor and in {@code META-INF/services/org.rpcrdma4j.fabric.FabricProvider} for the class path.
 * Implementations have a public no-argument constructor and do nothing in it.
 */
public interface FabricProvider {

    /** @return the name users choose it by ({@code --fabric NAME}): lower case, no spaces */
    String name();

    /** @return one line that says what the fabric is and who can reach it */
    String description();

    /**
     * @return whether a fabric that serves must be opened with {@link FabricOptions#listen}: a fabric
     *     whose listeners are named by the address they bind (verbs), not one whose every fabric has an
     *     address of its own (the simulated network)
     */
    boolean needsListenAddress();

    /**
     * @return the {@link FabricOptions#deviceProfile() device profiles} {@link #open} builds its device with:
     *     {@link DeviceProfile#READ_WRITE} only, unless the fabric can make its device do less (the EFA fabrics,
     *     whose endpoint emulates what the device lacks)
     */
    default Set<DeviceProfile> deviceProfiles() {
        return Set.of(DeviceProfile.READ_WRITE);
    }

    /**
     * Opens a fabric, its progress thread running.
     *
     * @param options where it listens, the seed of a simulated one, and what its device may do
     * @return the fabric; close it to end its connections and release what it holds
     * @throws IllegalArgumentException if the options do not fit this fabric (an address it cannot parse,
     *                                  a listening address it needs and was not given, a device profile not
     *                                  among {@link #deviceProfiles()})
     * @throws Exception                what the fabric meets when it opens its device (missing native
     *                                  libraries, no device at that address)
     */
    Fabric open(FabricOptions options) throws Exception;

    /**
     * @param text a listener's address as this fabric's users write it, such as {@code 10.0.0.1:20049}
     * @return the fabric address a client connects to
     * @throws IllegalArgumentException if the text names no address of this fabric, or the fabric's
     *                                  listeners cannot be named in text
     */
    FabricAddress peer(String text);

    /**
     * @param address an address of a fabric this provider opened
     * @return it as text that {@link #peer} reads back, to give to peers (a server prints it)
     */
    default String format(FabricAddress address) {
        return address.toString();
    }
}
