package org.rpcrdma4j.fabric.efa;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.Set;
import org.rpcrdma4j.efa.EfaEndpoint;
import org.rpcrdma4j.efa.EndpointConfig;
import org.rpcrdma4j.efa.device.udp.UdpAddresses;
import org.rpcrdma4j.efa.device.udp.UdpDevice;
import org.rpcrdma4j.efa.device.udp.UdpDeviceConfig;
import org.rpcrdma4j.efa.device.udp.UdpFaults;
import org.rpcrdma4j.fabric.DeviceProfile;
import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.fabric.FabricOptions;
import org.rpcrdma4j.fabric.FabricProvider;
import org.rpcrdma4j.fabric.SocketAddressText;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fabric named {@code udp}: the EFA fabric on an EFA RDM endpoint over a {@link UdpDevice}, so
 * between processes and hosts over plain UDP. Each fabric binds its device to the address it is
 * given ({@code ADDRESS[:PORT]}, port 20049 when left out; port 0 picks a free one), which is its GID
 * and QPN, and has a progress thread of its own. A peer is written as this provider formats a
 * fabric's address, {@code ADDRESS:PORT/CONNID} (the connid in hex): as with {@code fi_av_insert},
 * the whole raw address, connid included, travels out of band.
 *
 * <p>A test hook: the system property {@value #FAULTS_PROPERTY}, as {@link UdpFaults#parse} reads it,
 * puts faults on everything the devices this provider opens send, drawn from the seed of
 * {@link FabricOptions#seed()}; this is how a test switches on the device's fault injector in a
 * process it starts ({@code testbed serve}, {@code testbed demo}). Not for production: it is logged
 * as a warning.
 */
public final class UdpFabricProvider implements FabricProvider {

    /** The system property that switches on the device's faults, e.g. {@code duplicate=0.01,reorder=0.02,window=8}. */
    public static final String FAULTS_PROPERTY = "rpcrdma4j.udp.faults";

    private static final Logger LOG = LoggerFactory.getLogger(UdpFabricProvider.class);
    private static final int DEFAULT_PORT = 20049;

    /** What {@link java.util.ServiceLoader} makes; it opens nothing. */
    public UdpFabricProvider() {
    }

    @Override
    public String name() {
        return "udp";
    }

    @Override
    public String description() {
        return "EFA RDM endpoints on the UDP device, between processes and hosts over UDP";
    }

    /** @return true: a device binds an address of this host, its GID, whether it serves or calls */
    @Override
    public boolean needsListenAddress() {
        return true;
    }

    /** @return every profile: the UDP device announces and serves the capabilities it is given */
    @Override
    public Set<DeviceProfile> deviceProfiles() {
        return EnumSet.allOf(DeviceProfile.class);
    }

    /**
     * Opens a fabric on a UDP device with the capabilities of the options'
     * {@link FabricOptions#deviceProfile() device profile}.
     *
     * @throws IllegalArgumentException if no address is given or it cannot be parsed, or
     *                                  {@value #FAULTS_PROPERTY} cannot be
     * @throws IOException              if the device's socket cannot be bound
     */
    @Override
    public Fabric open(FabricOptions options) throws IOException {
        if (options.listen() == null) {
            throw new IllegalArgumentException("a UDP fabric needs the address of this host to bind, its GID "
                    + "(ADDRESS[:PORT])");
        }
        InetSocketAddress bind = SocketAddressText.parse(options.listen(), DEFAULT_PORT);
        UdpDeviceConfig.Builder config = UdpDeviceConfig.builder().withBindAddress(bind)
                .withCapabilities(DeviceCapabilities.of(options.deviceProfile()));
        String faults = System.getProperty(FAULTS_PROPERTY);
        if (faults != null) {
            config.withFaults(UdpFaults.parse(faults)).withFaultSeed(options.seed());
            LOG.warn("the UDP device at {} injects faults ({}={}, seed {}): a test hook", bind, FAULTS_PROPERTY,
                    faults, options.seed());
        }
        return EfaFabric.open(UdpDevice.open(config.build()), "efa-udp " + bind);
    }

    /**
     * @param text {@code ADDRESS:PORT/CONNID} as {@link #format} writes it ({@code [IPv6]:PORT/CONNID})
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

    /**
     * Restarts the process behind a fabric this provider opened, a fault for tests: its device closes
     * and a new one binds the same address with a new connid, under a new endpoint (see
     * {@link EfaFabric#restart}); every connection ends and its peers are told.
     *
     * @param fabric a fabric of this provider, open
     */
    static void restart(EfaFabric fabric) {
        fabric.onProgressThread(() -> {
            EfaEndpoint old = fabric.endpoint();
            InetSocketAddress bind = UdpAddresses.socketAddressOf(old.address().gid(), old.address().qpn());
            old.close();
            try {
                fabric.restart(new EfaEndpoint(UdpDevice.open(UdpDeviceConfig.builder().withBindAddress(bind)
                        .build()), EndpointConfig.DEFAULT));
            } catch (IOException e) {
                throw new UncheckedIOException("binding " + bind + " again failed", e);
            }
            return null;
        });
    }
}
