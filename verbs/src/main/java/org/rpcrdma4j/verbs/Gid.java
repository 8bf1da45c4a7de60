package org.rpcrdma4j.verbs;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * A GID: a port's 128-bit global address. On RoCE each GID is an IP address of the port's netdev
 * (IPv4 as {@code ::ffff:a.b.c.d}); index 0 is the link-local {@code fe80::} one, which is unusable
 * when the host runs with IPv6 disabled although the table still lists it.
 */
public final class Gid {
    private final byte[] raw;

    /** @param raw the 16 bytes, network order; copied */
    public Gid(byte[] raw) {
        if (raw.length != 16) {
            throw new IllegalArgumentException("a GID has 16 bytes, not " + raw.length);
        }
        this.raw = raw.clone();
    }

    /** @return the 16 bytes, a copy */
    public byte[] raw() {
        return raw.clone();
    }

    /** @return whether every byte is 0 (an unused table entry) */
    public boolean isZero() {
        for (byte b : raw) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    /** @return the address as IPv6, or the IPv4 address it maps ({@code ::ffff:a.b.c.d}) */
    public InetAddress toInetAddress() {
        try {
            return InetAddress.getByAddress(raw);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * @param address an IPv4 or IPv6 address
     * @return the GID RoCE gives that address
     */
    public static Gid of(InetAddress address) {
        byte[] bytes = address.getAddress();
        if (bytes.length == 16) {
            return new Gid(bytes);
        }
        byte[] mapped = new byte[16];
        mapped[10] = (byte) 0xff;
        mapped[11] = (byte) 0xff;
        System.arraycopy(bytes, 0, mapped, 12, 4);
        return new Gid(mapped);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Gid g && Arrays.equals(raw, g.raw);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(raw);
    }

    @Override
    public String toString() {
        return HexFormat.ofDelimiter(":").formatHex(raw);
    }
}
