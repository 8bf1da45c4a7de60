package org.rpcrdma4j.fabric.rc;

import java.net.InetSocketAddress;
import org.rpcrdma4j.fabric.DeviceProfile;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.fabric.FabricOptions;
import org.rpcrdma4j.fabric.FabricProvider;
import org.rpcrdma4j.fabric.SocketAddressText;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * The fabric named {@code verbs}: RC queue pairs and RDMA-CM on the RDMA device that has the address
 * listened on, or the one the route to a server picks. Addresses are written {@code ADDRESS[:PORT]}
 * ({@code [IPv6]:PORT}), the port 20049 when left out (NFS/RDMA's).
 */
public final class RcFabricProvider implements FabricProvider {

    /** What {@link java.util.ServiceLoader} makes; it opens nothing. */
    public RcFabricProvider() {
    }

    @Override
    public String name() {
        return "verbs";
    }

    @Override
    public String description() {
        return "RC queue pairs and RDMA-CM on an RDMA device, as the Linux kernel's NFS/RDMA client and server";
    }

    @Override
    public boolean needsListenAddress() {
        return true;
    }

    /**
     * @throws IllegalArgumentException if asked for a device profile other than read-write
     * @throws VerbsException if librdmacm or libibverbs is missing or the device cannot be opened
     */
    @Override
    public Fabric open(FabricOptions options) throws VerbsException {
        if (options.deviceProfile() != DeviceProfile.READ_WRITE) {
            throw new IllegalArgumentException("an RC device does RDMA read and write: it takes no device profile "
                    + options.deviceProfile().label() + " (the sim and udp fabrics do)");
        }
        // one that only connects: RDMA-CM picks the device by the route to each server
        InetSocketAddress bind = options.listen() == null ? new InetSocketAddress(0) : parse(options.listen());
        return RcFabric.open(bind);
    }

    @Override
    public FabricAddress peer(String text) {
        return RcFabric.addressOf(parse(text));
    }

    /** @return {@code ADDRESS:PORT} ({@code [IPv6]:PORT}), what {@link #peer} reads */
    @Override
    public String format(FabricAddress address) {
        return SocketAddressText.format(RcFabric.socketAddressOf(address));
    }

    /**
     * @param text {@code ADDRESS[:PORT]}, {@code [IPv6]:PORT}, or a bare IPv6 address
     * @return the socket address, its port {@link RcFabric#NFS_RDMA_PORT} when none is given
     * @throws IllegalArgumentException if the port is not a number from 0 to 65535 or the host is unknown
     */
    static InetSocketAddress parse(String text) {
        return SocketAddressText.parse(text, RcFabric.NFS_RDMA_PORT);
    }
}
