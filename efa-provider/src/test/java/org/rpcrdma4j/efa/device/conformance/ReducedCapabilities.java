package org.rpcrdma4j.efa.device.conformance;

import java.util.Set;
import org.rpcrdma4j.efa.device.Capability;
import org.rpcrdma4j.efa.device.Device;

/**
 * A {@link DeviceFactory} that can make devices with fewer {@link Capability capabilities} than its
 * own, as a peer without RDMA write firmware is (EFA RDM protocol v4 §4.6). A factory that cannot
 * does not implement this, and the checks of what a device without a capability does are skipped
 * unless the factory's own devices lack it.
 */
public interface ReducedCapabilities {

    /**
     * @param capabilities what the device may do, a subset of what {@link DeviceFactory#newDevice()}'s
     *     devices can
     * @return a new device on the factory's network with exactly those capabilities
     */
    Device newDevice(Set<Capability> capabilities);
}
