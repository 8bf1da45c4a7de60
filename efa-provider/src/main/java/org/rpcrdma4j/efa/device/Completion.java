package org.rpcrdma4j.efa.device;

import java.util.Objects;

/**
 * A completion polled from a device: which work request finished, how, and for a receive where
 * the packet came from.
 *
 * <p>For a successful receive the source is what the EFA device reports: the QPN, the GID, and
 * the address handle only if the receiver has one for that GID (EFA RDM protocol v4 §2.2;
 * otherwise {@code null}, the "unknown AHN" case the raw-address header exists for). A device that
 * cannot name the GID of a sender it has no handle for (an EFA NIC read without the extended
 * completion queue) reports no GID either: the endpoint then takes the sender's address from the
 * packet's raw-address header, as libfabric's provider does, or drops the packet. The sender's
 * Q-Key is not reported, which is why the protocol carries its connid in packet headers (§4.4).
 *
 * @param wrId the work request id given when the operation was posted
 * @param opcode what completed
 * @param status how it ended
 * @param byteLength the number of bytes sent, received, read or written; 0 unless the status is
 *     {@link CompletionStatus#OK}
 * @param sourceAh for a successful {@link Opcode#RECV}: the receiver's handle for the source GID,
 *     or {@code null} if it has none; otherwise {@code null}
 * @param sourceGid for a successful {@link Opcode#RECV}: the GID of the sender, or {@code null}
 *     if the device cannot name it (then {@code sourceAh} is {@code null} too); otherwise
 *     {@code null}
 * @param sourceQpn for a successful {@link Opcode#RECV}: the QPN of the sender; otherwise -1
 */
public record Completion(long wrId, Opcode opcode, CompletionStatus status, int byteLength,
                         AddressHandle sourceAh, Gid sourceGid, int sourceQpn) {

    /**
     * Checks the components.
     *
     * @param wrId the work request id
     * @param opcode what completed
     * @param status how it ended
     * @param byteLength bytes moved, 0 unless the status is {@link CompletionStatus#OK}
     * @param sourceAh for a receive: the receiver's handle for the source GID, or {@code null}
     * @param sourceGid for a receive: the sender's GID, otherwise {@code null}
     * @param sourceQpn for a receive: the sender's QPN, otherwise -1
     */
    public Completion {
        Objects.requireNonNull(opcode, "opcode");
        Objects.requireNonNull(status, "status");
    }

    /**
     * A completion of an operation this device initiated (anything but a receive).
     *
     * @param wrId the work request id
     * @param opcode what completed
     * @param status how it ended
     * @param byteLength bytes moved, 0 unless {@code status} is {@link CompletionStatus#OK}
     * @return the completion, with no source
     */
    public static Completion ofInitiated(long wrId, Opcode opcode, CompletionStatus status, int byteLength) {
        return new Completion(wrId, opcode, status, byteLength, null, null, -1);
    }

    /**
     * A successful receive.
     *
     * @param wrId the work request id of the receive buffer
     * @param byteLength the packet length
     * @param sourceAh the receiver's handle for the source GID, or {@code null}
     * @param sourceGid the sender's GID, or {@code null} if the device cannot name it
     * @param sourceQpn the sender's QPN
     * @return the completion
     * @throws IllegalArgumentException if a handle is given without a GID
     */
    public static Completion ofReceived(long wrId, int byteLength, AddressHandle sourceAh, Gid sourceGid,
                                        int sourceQpn) {
        if (sourceGid == null && sourceAh != null) {
            throw new IllegalArgumentException("a source handle names a GID: " + sourceAh);
        }
        return new Completion(wrId, Opcode.RECV, CompletionStatus.OK, byteLength, sourceAh, sourceGid, sourceQpn);
    }
}
