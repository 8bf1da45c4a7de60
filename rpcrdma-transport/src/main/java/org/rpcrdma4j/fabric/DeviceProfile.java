package org.rpcrdma4j.fabric;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The one-sided RDMA a fabric's device may do, to run the transport on devices that lack some of it
 * (issue 25 §2): EFA devices come with RDMA read and write, with RDMA read only, or with neither, and
 * the EFA endpoint emulates what its device lacks. A fabric lists the profiles it can build its device
 * with in {@link FabricProvider#deviceProfiles()}; one whose device does what it does accepts
 * {@link #READ_WRITE} only.
 */
public enum DeviceProfile {
    /** No RDMA: the fabric's RDMA Reads and Writes travel as messages. */
    NONE("none"),
    /** RDMA read only: RDMA Writes travel as messages, or as reads the target makes. */
    READ("read"),
    /** RDMA read and write, as RC devices and most EFA devices have: the default. */
    READ_WRITE("read-write");

    private final String label;

    DeviceProfile(String label) {
        this.label = label;
    }

    /** @return the profile's name as users write it: {@code none}, {@code read}, {@code read-write} */
    public String label() {
        return label;
    }

    /**
     * @param label a profile's {@link #label()}
     * @return that profile
     * @throws IllegalArgumentException if no profile has that label
     */
    public static DeviceProfile named(String label) {
        for (DeviceProfile profile : values()) {
            if (profile.label.equals(label)) {
                return profile;
            }
        }
        throw new IllegalArgumentException("no device profile " + label + "; there are "
                + Arrays.stream(values()).map(DeviceProfile::label).collect(Collectors.joining(", ")));
    }
}
