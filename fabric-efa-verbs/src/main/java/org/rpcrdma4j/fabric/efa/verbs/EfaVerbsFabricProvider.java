package org.rpcrdma4j.fabric.efa.verbs;

import java.net.InetSocketAddress;
import org.rpcrdma4j.efa.device.verbs.VerbsDevice;
import org.rpcrdma4j.efa.device.verbs.VerbsDeviceConfig;
import org.rpcrdma4j.fabric.DeviceProfile;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.fabric.FabricOptions;
import org.rpcrdma4j.fabric.FabricProvider;
import org.rpcrdma4j.fabric.SocketAddressText;
import org.rpcrdma4j.fabric.efa.EfaFabric;
import org.rpcrdma4j.fabric.efa.IpPeerText;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * The fabric named {@code efa-verbs}: the EFA fabric on an EFA RDM endpoint over a {@link VerbsDevice},
 * so between hosts over RoCE or InfiniBand (Soft-RoCE in the rig), one RC queue pair per peer. Each
 * fabric opens its device on the RDMA device that has the address it is given ({@code ADDRESS[:PORT]},
 * port {@value #DEFAULT_PORT} when left out; 0 picks a free one), which is its GID and QPN, with the
 * device's default bounds, and has a progress thread of its own that polls the device. A peer is written
 * as the {@code udp} fabric's are, {@code ADDRESS:PORT/CONNID} ({@link IpPeerText}): the whole raw
 * address, given to a client as its server printed it.
 */
public final class EfaVerbsFabricProvider implements FabricProvider {

    /** The port a device listens on with RDMA-CM when none is given: beside NFS/RDMA's 20049. */
    public static final int DEFAULT_PORT = 20050;

    /** What {@link java.util.ServiceLoader} makes; it opens nothing. */
    public EfaVerbsFabricProvider() {
    }

    @Override
    public String name() {
        return "efa-verbs";
    }

    @Override
    public String description() {
        return "EFA RDM endpoints on the verbs device: RC queue pairs per peer on an RDMA device, between hosts";
    }

    /** @return true: a device listens on an address of an RDMA device, its GID, whether it serves or calls */
    @Override
    public boolean needsListenAddress() {
        return true;
    }

    /**
     * @throws IllegalArgumentException if no address is given, it cannot be parsed or is the wildcard, or a
     *                                  device profile other than read-write is asked for
     * @throws VerbsException           if libibverbs or librdmacm is missing, or no RDMA device has the
     *                                  address, or the device refuses what the verbs device needs
     */
    @Override
    public Fabric open(FabricOptions options) throws VerbsException {
        if (options.deviceProfile() != DeviceProfile.READ_WRITE) {
            throw new IllegalArgumentException("an efa-verbs fabric's device does what the hardware does: it takes no device profile "
                    + options.deviceProfile().label() + " (the sim and udp fabrics do)");
        }
        if (options.listen() == null) {
            throw new IllegalArgumentException("an efa-verbs fabric needs the address of this host's RDMA device, "
                    + "its GID (ADDRESS[:PORT])");
        }
        InetSocketAddress bind = SocketAddressText.parse(options.listen(), DEFAULT_PORT);
        VerbsDevice device = VerbsDevice.open(VerbsDeviceConfig.on(bind));
        return EfaFabric.open(device, "efa-verbs " + bind);
    }

    /**
     * @param text {@code ADDRESS:PORT/CONNID}, as {@link #format} writes it
     * @throws IllegalArgumentException if the text has no connid, or names no address
     */
    @Override
    public FabricAddress peer(String text) {
        return IpPeerText.parse(text, DEFAULT_PORT);
    }

    /** @return {@code ADDRESS:PORT/CONNID}, what {@link #peer} reads */
    @Override
    public String format(FabricAddress address) {
        return IpPeerText.format(address);
    }
}
