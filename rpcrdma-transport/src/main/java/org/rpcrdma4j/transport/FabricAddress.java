package org.rpcrdma4j.transport;

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
 * @param raw      the fabric's own encoding of the address, copied
 * @param identity the 16 bytes of the endpoint's identity (an EFA GID), copied
 * @param number   a small number that tells endpoints with one identity apart (an EFA QPN)
 */
public record FabricAddress(byte[] raw, byte[] identity, int number) {

    /** Bytes in an identity: an IPv6 address. */
    public static final int IDENTITY_LENGTH = 16;

    /**
     * Copies and checks the components.
     *
     * @param raw      the fabric's encoding
     * @param identity 16 bytes
     * @param number   a small number
     */
    public FabricAddress {
        raw = Objects.requireNonNull(raw, "raw").clone();
        identity = Objects.requireNonNull(identity, "identity").clone();
        if (identity.length != IDENTITY_LENGTH) {
            throw new IllegalArgumentException("identity is " + identity.length + " bytes, not 16");
        }
    }

    /** @return a copy of the fabric's encoding */
    @Override
    public byte[] raw() {
        return raw.clone();
    }

    /** @return a copy of the identity bytes */
    @Override
    public byte[] identity() {
        return identity.clone();
    }

    /** @return the identity as an IPv6 address */
    public InetAddress inetAddress() {
        try {
            return Inet6Address.getByAddress(null, identity, null);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("16 bytes are always an IPv6 address", e);
        }
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
        return "FabricAddress[" + inetAddress().getHostAddress() + "#" + number + "]";
    }
}
