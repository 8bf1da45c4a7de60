package org.rpcrdma4j.efa.device.conformance;

import org.rpcrdma4j.efa.device.Device;
import org.rpcrdma4j.efa.device.Gid;

/**
 * What a device implementation gives the conformance kit: devices of its kind on one network, the
 * way to let that network move, and two addresses where nothing is. The kit asks for a new factory,
 * so a new network, for every test and closes it after the test.
 *
 * <p>What only some devices can do is offered by implementing a further interface as well
 * ({@link LinkFaults}, {@link ReducedCapabilities}); the checks that need one are skipped, with the
 * reason, on a factory without it.
 *
 * <p>The kit drives every device from the test's thread only, as the SPI's one progress thread.
 */
public interface DeviceFactory extends AutoCloseable {

    /**
     * @return a new device (queue pair) on this network, with the device's full capabilities; every
     *     device of the factory can reach every other by its {@link Device#address()}
     */
    Device newDevice();

    /**
     * Lets the network move: the kit calls it whenever it waits and has polled nothing. A simulated
     * network executes what has become due (advancing its virtual clock); a device that progresses
     * on its own threads or inside {@link Device#pollCompletions} may do nothing. Must not block
     * for long: the kit calls it in a loop bounded by {@link HangGuard}.
     */
    void progress();

    /** @return a GID no device of this network has: towards it, nothing is reachable */
    Gid unreachableGid();

    /**
     * @param gid the GID of a device of this network
     * @return a QPN, 0..65535, that no queue pair at that GID has
     */
    int absentQpn(Gid gid);

    /** Closes every device not closed yet, then the network. */
    @Override
    void close();
}
