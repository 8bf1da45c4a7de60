package org.rpcrdma4j.fabric;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Objects;

/**
 * A fabric address as the transport sees it: opaque bytes the fabric understands, plus the identity
 * of the endpoint as an IPv6 address and a number (for EFA, the GID, which is IPv6-shaped, and the
 * QPN). The identity lets a connection show oncrpc4j an {@code InetSocketAddress}.
 *
 * <h2>The IP address of an endpoint</h2>
 * Built once, here, so that every connection to or from this address shows one {@link InetAddress}
 * object, whose host name the JDK looks up at most once (oncrpc4j's TCP transport does the same, and
 * nfs4j asks for the caller's host name on every call to check its exports):
 * <ul>
 * <li>An identity that is an IPv4-mapped IPv6 address ({@code ::ffff:a.b.c.d}), as a RoCEv2 GID of
 *     an IPv4 interface and the UDP device's GIDs are, is the peer's real IPv4 address; its host
 *     name is looked up in DNS on first use, as over TCP.</li>
 * <li>Any other identity (an EFA GID, a link-local {@code fe80::} GID) names no host: its host name
 *     is its literal text, set up front, so {@link InetAddress#getHostName()} never goes to DNS.</li>
 * </ul>
 */
public final class FabricAddress {

    /** Bytes in an identity: an IPv6 address. */
    public static final int IDENTITY_LENGTH = 16;

    private final byte[] raw;
    private final byte[] identity;
    private final int number;
    private final InetAddress inetAddress;

    /**
     * Copies and checks the components.
     *
     * @param raw      the fabric's own encoding of the address
     * @param identity the 16 bytes of the endpoint's identity (an EFA GID)
     * @param number   a small number that tells endpoints with one identity apart (an EFA QPN)
     */
    public FabricAddress(byte[] raw, byte[] identity, int number) {
        this.raw = Objects.requireNonNull(raw, "raw").clone();
        this.identity = Objects.requireNonNull(identity, "identity").clone();
        if (identity.length != IDENTITY_LENGTH) {
            throw new IllegalArgumentException("identity is " + identity.length + " bytes, not 16");
        }
        this.number = number;
        this.inetAddress = inetAddressOf(this.identity);
    }

    private static InetAddress inetAddressOf(byte[] identity) {
        try {
            InetAddress address = InetAddress.getByAddress(identity);
            if (address instanceof Inet6Address) {
                // No host has this name: give it its literal, which is what a failed reverse lookup returns.
                return Inet6Address.getByAddress(address.getHostAddress(), identity, null);
            }
            return address;
        } catch (UnknownHostException e) {
            throw new IllegalStateException("16 bytes are always an IP address", e);
        }
    }

    /** @return a copy of the fabric's encoding */
    public byte[] raw() {
        return raw.clone();
    }

    /** @return a copy of the identity bytes */
    public byte[] identity() {
        return identity.clone();
    }

    /** @return the number that tells endpoints with one identity apart */
    public int number() {
        return number;
    }

    /** @return the identity as an IP address, the same object on every call (see the class comment) */
    public InetAddress inetAddress() {
        return inetAddress;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof FabricAddress that && Arrays.equals(raw, that.raw)
                && Arrays.equals(identity, that.identity) && number == that.number;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(raw) * 31 + number;
    }

    @Override
    public String toString() {
        return "FabricAddress[" + inetAddress.getHostAddress() + "#" + number + "]";
    }
}
