package org.rpcrdma4j.fabric.efa;

import java.util.EnumSet;
import java.util.Set;
import org.rpcrdma4j.efa.device.Capability;
import org.rpcrdma4j.fabric.DeviceProfile;

/**
 * What a device of each {@link DeviceProfile} announces: the EFA fabrics build their simulated and UDP
 * devices with these capabilities, and their endpoints emulate the RDMA a device lacks.
 */
final class DeviceCapabilities {

    private DeviceCapabilities() {
    }

    /**
     * @param profile what the device may do
     * @return the capabilities a device of that profile has
     */
    static Set<Capability> of(DeviceProfile profile) {
        return switch (profile) {
            case NONE -> EnumSet.noneOf(Capability.class);
            case READ -> EnumSet.of(Capability.RDMA_READ);
            case READ_WRITE -> EnumSet.of(Capability.RDMA_READ, Capability.RDMA_WRITE);
        };
    }
}
