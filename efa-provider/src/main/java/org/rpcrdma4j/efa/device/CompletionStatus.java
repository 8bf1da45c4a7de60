package org.rpcrdma4j.efa.device;

/**
 * The status of a completion. Names and numbers are those of the EFA device's
 * {@code efa_io_comp_status}, which libfabric's {@code efa_errno.h} mirrors, so
 * that a provider error code can carry them unchanged. Only the statuses a device of this SPI can
 * produce are listed; the numbers are stable.
 */
public enum CompletionStatus {
    /** The operation succeeded. */
    OK(0),
    /**
     * A local buffer was refused: its registration is unknown or gone, lacks the access the
     * operation needs, or does not hold the range ("LKEY not registered or does not match IOVA").
     */
    LOCAL_ERROR_INVALID_LKEY(5),
    /**
     * The operation is too long for the device: a send larger than the MTU, an RDMA read or write
     * larger than the maximum RDMA size ("Message too long").
     */
    LOCAL_ERROR_BAD_LENGTH(6),
    /**
     * The target refused a remote access: unknown key, range outside the registration, or missing
     * access right. rdma-core reports this status as {@code IBV_WC_REM_ACCESS_ERR}.
     */
    REMOTE_ERROR_BAD_ADDRESS(7),
    /** No queue pair with the destination QPN exists on the destination device. */
    REMOTE_ERROR_BAD_DEST_QPN(9),
    /**
     * Receiver not ready: the destination had no receive buffer posted. A normal event on EFA
     * that the provider answers by queueing the packet and backing off from the peer
     * (libfabric's EFA send/receive completion paths document, "Dealing with receiver not ready errors").
     */
    REMOTE_ERROR_RNR(10),
    /** The receive buffer at the destination was shorter than the packet ("Receiver SGL too short"). */
    REMOTE_ERROR_BAD_LENGTH(11),
    /**
     * The target never answered ("Unresponsive remote - detected locally"); the simulation reports
     * it for an RDMA request carrying a Q-Key the target queue pair no longer has.
     */
    LOCAL_ERROR_UNRESP_REMOTE(13),
    /** No device with the destination GID is reachable. */
    LOCAL_ERROR_UNREACH_REMOTE(15),
    /**
     * The device's "remote feature mismatch"; the simulation reports it when the target lacks the
     * capability (RDMA read or write) the operation needs.
     */
    REMOTE_ERROR_FEATURE_MISMATCH(18);

    private final int value;

    CompletionStatus(int value) {
        this.value = value;
    }

    /** @return the stable number of this status, that of {@code efa_io_comp_status} */
    public int value() {
        return value;
    }

    /**
     * Looks a status up by its number.
     *
     * @param value a number returned by {@link #value()}
     * @return the status, or {@code null} if the number names none
     */
    public static CompletionStatus fromValue(int value) {
        for (CompletionStatus status : values()) {
            if (status.value == value) {
                return status;
            }
        }
        return null;
    }
}
