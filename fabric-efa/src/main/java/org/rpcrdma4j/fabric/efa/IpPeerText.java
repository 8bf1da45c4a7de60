package org.rpcrdma4j.fabric.efa;

import java.net.InetSocketAddress;
import org.rpcrdma4j.efa.EndpointAddress;
import org.rpcrdma4j.efa.device.udp.UdpAddresses;
import org.rpcrdma4j.fabric.FabricAddress;
import org.rpcrdma4j.fabric.SocketAddressText;

/**
 * The text form of the address of an EFA fabric whose device names itself by IP (GID = the IP address,
 * QPN = a port): {@code ADDRESS:PORT/CONNID}, the connid in hex ({@code [IPv6]:PORT/CONNID}). As with
 * {@code fi_av_insert}, the whole raw address, connid included, travels out of band: a server prints it,
 * a client is given it. The {@code udp} and {@code efa-verbs} fabrics write their peers so.
 */
public final class IpPeerText {

    private IpPeerText() {
    }

    /**
     * @param text        {@code ADDRESS[:PORT]/CONNID}, as {@link #format} writes it
     * @param defaultPort the port when the text has none
     * @return the fabric address it names
     * @throws IllegalArgumentException if the text has no connid, or names no address
     */
    public static FabricAddress parse(String text, int defaultPort) {
        int slash = text.lastIndexOf('/');
        if (slash < 0) {
            throw new IllegalArgumentException("a peer of this fabric is ADDRESS:PORT/CONNID, as its serve prints it; "
                    + "the connid is missing in " + text);
        }
        int connid;
        try {
            connid = Integer.parseUnsignedInt(text.substring(slash + 1), 16);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a connid in " + text);
        }
        InetSocketAddress socket = SocketAddressText.parse(text.substring(0, slash), defaultPort);
        return EfaFabric.addressOf(new EndpointAddress(UdpAddresses.gidOf(socket.getAddress()), socket.getPort(),
                connid));
    }

    /** @return {@code ADDRESS:PORT/CONNID}, what {@link #parse} reads */
    public static String format(FabricAddress address) {
        EndpointAddress endpoint = EfaFabric.endpointAddressOf(address);
        return SocketAddressText.format(UdpAddresses.socketAddressOf(endpoint.gid(), endpoint.qpn())) + "/"
                + Integer.toHexString(endpoint.connid());
    }
}
