package org.rpcrdma4j.efa;

import org.rpcrdma4j.efa.device.CompletionStatus;

/**
 * Why an operation of an {@link EfaEndpoint} ended, with stable numbers in the manner of
 * libfabric's {@code efa_errno.h}: the device's completion statuses keep the numbers of
 * {@code efa_io_comp_status} (see {@link CompletionStatus}), and errors found by the provider
 * itself are numbered from 4096 (as libfabric numbers its own errors in efa_errno.h).
 */
public enum EfaErrorCode {
    /** The operation succeeded. */
    SUCCESS(0),
    /** Device: a local buffer was refused (unknown key, missing access, out of range). */
    LOCAL_ERROR_INVALID_LKEY(5),
    /** Device: the operation was too long for the device. */
    LOCAL_ERROR_BAD_LENGTH(6),
    /** Device: the target refused a remote access (key, bounds or access right). */
    REMOTE_ERROR_BAD_ADDRESS(7),
    /** Device: no queue pair with the destination QPN exists. */
    REMOTE_ERROR_BAD_DEST_QPN(9),
    /** Device: receiver not ready. The endpoint retries these itself; it never reports them. */
    REMOTE_ERROR_RNR(10),
    /** Device: the receive buffer at the destination was shorter than the packet. */
    REMOTE_ERROR_BAD_LENGTH(11),
    /** Device: the target never answered. */
    LOCAL_ERROR_UNRESP_REMOTE(13),
    /** Device: no device with the destination GID is reachable. */
    LOCAL_ERROR_UNREACH_REMOTE(15),
    /** Device: the target lacks the capability the operation needs. */
    REMOTE_ERROR_FEATURE_MISMATCH(18),
    /** Provider: an error the provider has no better name for. */
    OTHER(4096),
    /**
     * Provider: the message was longer than the receive buffer; the buffer holds its first bytes
     * (libfabric reports this as {@code FI_ETRUNC}).
     */
    MESSAGE_TRUNCATED(4097),
    /**
     * Provider: the peer's handshake does not announce the extra feature the operation needs (EFA RDM protocol
     * v4 §2.1): delivery complete (feature 1, §4.2) for a send or write of an endpoint configured for it
     * ({@link EndpointConfig#deliveryComplete()}; libfabric's provider answers {@code -FI_EOPNOTSUPP} before
     * v2.6.0), or READ_NACK (feature 6) to refuse a long-read this endpoint cannot read (§4.7). RMA the peer or
     * the device cannot do directly is emulated instead (4099, once for a device lacking a capability, is
     * retired with that).
     */
    PEER_LACKS_FEATURE(4098),
    /**
     * Provider: the peer is unreachable, so the endpoint dropped every operation with it. Either it
     * answered receiver-not-ready for longer than {@link EndpointLimits#peerUnreachableNs()}
     * without accepting a packet, or handling its traffic failed on the progress path. The peer
     * stays unreachable until it is {@linkplain EfaEndpoint#remove(long) removed} and inserted
     * again, or comes back with a new connid.
     */
    PEER_UNREACHABLE(4100),
    /**
     * Provider: a new queue pair with a new connid took the peer's GID and QPN: the process behind
     * the old one restarted (EFA RDM protocol v4 §4.4, "QP collision"), and what was in progress
     * with it can never finish. The new one is a new peer with a new handle.
     */
    PEER_RESTARTED(4101),
    /**
     * Provider: the operation was cancelled because its endpoint was closed or its peer removed
     * from the address vector (libfabric's {@code FI_ECANCELED}).
     */
    CANCELED(4102);

    private final int value;

    EfaErrorCode(int value) {
        this.value = value;
    }

    /** @return the stable number of this code */
    public int value() {
        return value;
    }

    /**
     * Maps a device completion status onto the code with the same number.
     *
     * @param status a device status
     * @return the code of the same name and number
     */
    public static EfaErrorCode of(CompletionStatus status) {
        for (EfaErrorCode code : values()) {
            if (code.value == status.value()) {
                return code;
            }
        }
        return OTHER;
    }
}
