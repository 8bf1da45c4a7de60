package org.rpcrdma4j.fabric.rc;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Test helper: RC fabrics of the default configuration on one {@link SimulatedRc} network, each on a
 * device of its own at 10.0.0.n. A fabric closed here must have left its device with no id, queue
 * pair, window or registration.
 */
final class SimulatedHosts implements AutoCloseable {

    private final SimulatedRc network = new SimulatedRc();
    private final Map<RcFabric, SimulatedRc.Device> devices = new LinkedHashMap<>();

    /**
     * @param port the port it listens on when asked to
     * @return a fabric on a new host
     */
    RcFabric open(int port) {
        InetAddress ip;
        try {
            ip = InetAddress.getByAddress(new byte[] {10, 0, 0, (byte) (devices.size() + 1)});
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
        SimulatedRc.Device device = network.device(ip);
        RcFabric fabric = new RcFabric(device, new InetSocketAddress(ip, port), RcFabric.Config.DEFAULT);
        devices.put(fabric, device);
        return fabric;
    }

    /** @return the device a fabric opened here runs on */
    SimulatedRc.Device device(RcFabric fabric) {
        return devices.get(fabric);
    }

    /** Breaks every connection of a fabric as a failed device does: each connected queue pair turns fatal. */
    void breakConnections(RcFabric fabric) {
        SimulatedRc.Device device = device(fabric);
        device.connectedQueuePairs().forEach(device::fatal);
    }

    /** Closes a fabric, then checks that its device was released cleanly. */
    void close(RcFabric fabric) {
        fabric.close();
        assertThat(device(fabric).closed()).as("the device released cleanly").isTrue();
    }

    /** Closes every fabric opened here, as {@link #close(RcFabric)}. */
    @Override
    public void close() {
        devices.keySet().forEach(this::close);
    }
}
