package org.rpcrdma4j.fabric.rc;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.atomic.AtomicInteger;
import org.rpcrdma4j.fabric.DeviceProfile;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.fabric.FabricOptions;
import org.rpcrdma4j.fabric.FabricProvider;
import org.rpcrdma4j.fabric.SocketAddressText;

/**
 * The fabric named {@code rc-sim}: the RC fabric, {@link RcFabric}, on one {@link SimulatedRc} network
 * of this JVM, so that what runs over verbs runs here without an RDMA device. Each fabric opened is a
 * host of its own (10.0.0.1, 10.0.0.2, ...) that listens, when asked to, on port 20049; they all reach
 * each other, and nothing outside this JVM reaches them. The network has nothing random in it, so the
 * seed changes nothing; it lives as long as the JVM and keeps only the addresses of closed fabrics.
 */
public final class RcSimFabricProvider implements FabricProvider {

    private static final SimulatedRc NETWORK = new SimulatedRc();
    /** The hosts given out so far. */
    private static final AtomicInteger HOSTS = new AtomicInteger();

    /** What {@link java.util.ServiceLoader} makes; it opens nothing. */
    public RcSimFabricProvider() {
    }

    @Override
    public String name() {
        return "rc-sim";
    }

    @Override
    public String description() {
        return "RC queue pairs and RDMA-CM on a simulated RC network, reachable from this JVM only";
    }

    @Override
    public boolean needsListenAddress() {
        return false;
    }

    /**
     * @throws IllegalArgumentException if given a listening address: each fabric has an address of its own;
     *                                  or a device profile other than read-write
     */
    @Override
    public Fabric open(FabricOptions options) {
        if (options.deviceProfile() != DeviceProfile.READ_WRITE) {
            throw new IllegalArgumentException("a simulated RC device does RDMA read and write: it takes no device profile "
                    + options.deviceProfile().label() + " (the sim and udp fabrics do)");
        }
        if (options.listen() != null) {
            throw new IllegalArgumentException("a simulated RC fabric takes no listening address: each has its own, "
                    + "its localAddress()");
        }
        return NETWORK.open(new InetSocketAddress(nextHost(), RcFabric.NFS_RDMA_PORT));
    }

    /** @return the next host's address, 10.0.0.1 up */
    private static InetAddress nextHost() {
        int host = HOSTS.incrementAndGet();
        try {
            return InetAddress.getByAddress(new byte[] {10, (byte) (host >>> 16), (byte) (host >>> 8), (byte) host});
        } catch (UnknownHostException e) {
            throw new AssertionError("four bytes are an IPv4 address", e);
        }
    }

    /** @throws IllegalArgumentException always: nothing outside this JVM reaches a simulated RC fabric */
    @Override
    public FabricAddress peer(String text) {
        throw new IllegalArgumentException("a simulated RC fabric's listener is reached from this JVM only, by its "
                + "localAddress(), not by text such as " + text);
    }

    /** @return {@code ADDRESS:PORT} on the simulated network, to read: {@link #peer} takes no text */
    @Override
    public String format(FabricAddress address) {
        return SocketAddressText.format(RcFabric.socketAddressOf(address));
    }
}
