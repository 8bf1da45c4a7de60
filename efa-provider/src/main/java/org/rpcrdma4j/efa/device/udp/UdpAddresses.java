package org.rpcrdma4j.efa.device.udp;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import org.rpcrdma4j.efa.device.Gid;

/**
 * How {@link UdpDevice} maps EFA addresses onto IP: the GID is the IP address (an IPv4 address as
 * its IPv4-mapped IPv6 form, {@code ::ffff:a.b.c.d}, RFC 4291 §2.5.5.2), the QPN the UDP port.
 */
public final class UdpAddresses {

    private UdpAddresses() {
    }

    /**
     * @param address an IP address
     * @return the GID that names it
     */
    public static Gid gidOf(InetAddress address) {
        final byte[] raw = address.getAddress();
        if (address instanceof Inet4Address) {
            final byte[] mapped = new byte[Gid.LENGTH];
            mapped[10] = (byte) 0xFF;
            mapped[11] = (byte) 0xFF;
            System.arraycopy(raw, 0, mapped, 12, 4);
            return Gid.of(mapped);
        }
        return Gid.of(raw);
    }

    /**
     * @param gid a GID
     * @return the IP address it names: an {@link Inet4Address} for an IPv4-mapped GID
     */
    public static InetAddress inetAddressOf(Gid gid) {
        try {
            return InetAddress.getByAddress(gid.toBytes());
        } catch (UnknownHostException e) {
            throw new IllegalStateException("16 bytes are always an address", e);
        }
    }

    /**
     * @param gid a GID
     * @param qpn a QPN, 0..65535
     * @return the UDP socket address of that queue pair
     */
    public static InetSocketAddress socketAddressOf(Gid gid, int qpn) {
        return new InetSocketAddress(inetAddressOf(gid), qpn);
    }
}
