package org.rpcrdma4j.efa.device;

import java.util.Objects;

/**
 * The address of a device queue pair: GID, QPN and Q-Key, the parts of the EFA RDM raw address
 * that the device knows (EFA RDM protocol v4 §1.4, table 1.5). The provider uses the Q-Key as
 * its connection ID ({@code connid}): a queue pair re-created on the same QPN gets a new Q-Key,
 * and the device drops packets that carry the old one (§4.4, "QP collision").
 *
 * @param gid the device's GID
 * @param qpn the queue pair number, u16 as in the raw address
 * @param qkey the Q-Key, u32 held in an {@code int}; also the endpoint's connid
 */
public record DeviceAddress(Gid gid, int qpn, int qkey) {

    /** Largest QPN the raw address can carry ({@code uint16_t}). */
    public static final int MAX_QPN = 0xFFFF;

    /**
     * Checks the components.
     *
     * @param gid the device's GID
     * @param qpn the queue pair number, u16 as in the raw address
     * @param qkey the Q-Key, u32 held in an {@code int}; also the endpoint's connid
     * @throws IllegalArgumentException if the QPN does not fit 16 bits
     */
    public DeviceAddress {
        Objects.requireNonNull(gid, "gid");
        requireQpn(qpn);
    }

    /**
     * Checks that a QPN fits the raw address.
     *
     * @param qpn the queue pair number
     * @return {@code qpn}
     * @throws IllegalArgumentException if it is negative or above {@link #MAX_QPN}
     */
    public static int requireQpn(int qpn) {
        if (qpn < 0 || qpn > MAX_QPN) {
            throw new IllegalArgumentException("QPN " + qpn + " is outside 0.." + MAX_QPN);
        }
        return qpn;
    }

    @Override
    public String toString() {
        return "DeviceAddress[gid=" + gid + ", qpn=" + qpn + ", qkey=0x" + Integer.toHexString(qkey) + "]";
    }
}
