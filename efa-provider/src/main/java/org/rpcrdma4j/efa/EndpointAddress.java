package org.rpcrdma4j.efa;

import java.nio.ByteBuffer;
import java.util.Objects;
import org.rpcrdma4j.efa.device.DeviceAddress;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.wire.RawAddressFlyweight;

/**
 * The raw address of an EFA RDM endpoint: GID, QPN and connid (EFA RDM protocol v4 §1.4,
 * table 1.5). This is what an application exchanges out of band and inserts into the address
 * vector with {@link EfaEndpoint#insert(EndpointAddress)}, the analogue of {@code fi_av_insert}.
 *
 * @param gid the device GID
 * @param qpn the queue pair number, u16
 * @param connid the connection id (the device's Q-Key), u32 held in an {@code int}
 */
public record EndpointAddress(Gid gid, int qpn, int connid) {

    /** Length of the encoded raw address. */
    public static final int LENGTH = RawAddressFlyweight.LENGTH;

    /**
     * Checks the components.
     *
     * @param gid the device GID
     * @param qpn the queue pair number
     * @param connid the connection id
     * @throws IllegalArgumentException if the QPN does not fit 16 bits
     */
    public EndpointAddress {
        Objects.requireNonNull(gid, "gid");
        DeviceAddress.requireQpn(qpn);
    }

    /**
     * @param address a device queue pair's address
     * @return the endpoint address over that queue pair; the Q-Key is the connid
     */
    public static EndpointAddress of(DeviceAddress address) {
        return new EndpointAddress(address.gid(), address.qpn(), address.qkey());
    }

    /**
     * Reads a raw address in the wire layout of table 1.5.
     *
     * @param buffer the bytes
     * @param offset where the address starts
     * @return the address; the {@code pad} and {@code reserved} bytes are ignored
     */
    public static EndpointAddress decode(ByteBuffer buffer, int offset) {
        final RawAddressFlyweight raw = new RawAddressFlyweight().wrap(buffer, offset);
        final byte[] gid = new byte[Gid.LENGTH];
        raw.getGid(gid);
        return new EndpointAddress(Gid.of(gid), raw.qpn(), (int) raw.qkey());
    }

    /**
     * Writes this address in the wire layout of table 1.5, with zero {@code pad} and
     * {@code reserved} bytes.
     *
     * @param buffer the destination
     * @param offset where the address starts; {@link #LENGTH} bytes are written
     */
    public void encode(ByteBuffer buffer, int offset) {
        new RawAddressFlyweight().wrap(buffer, offset)
                .gid(gid.toBytes()).qpn(qpn).pad(0).qkey(Integer.toUnsignedLong(connid)).next(0);
    }

    @Override
    public String toString() {
        return "EndpointAddress[gid=" + gid + ", qpn=" + qpn + ", connid=0x" + Integer.toHexString(connid) + "]";
    }
}
