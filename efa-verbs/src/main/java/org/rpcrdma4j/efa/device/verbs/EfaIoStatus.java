package org.rpcrdma4j.efa.device.verbs;

import org.rpcrdma4j.efa.device.CompletionStatus;

/**
 * The statuses an EFA device writes into a completion ({@code enum efa_io_comp_status}, rdma-core's
 * providers/efa/efa_io_defs.h; libefa hands the number over in {@code ibv_wc.vendor_err}), each with the
 * SPI status {@link EfaSrdDevice} reports for it. Numbers the SPI has ({@link CompletionStatus} keeps
 * them) pass through unchanged. The others are narrowed onto the SPI status of the same libfabric error
 * class ({@code to_fi_errno} in libfabric's prov/efa/src/efa_errno.h) and counted
 * ({@link SrdCounter#STATUSES_NARROWED}); a number not listed here is {@code null} from {@link #of}.
 * libefa's own {@code ibv_wc.status} is not used: it folds several of these into one (FEATURE_MISMATCH and
 * REMOTE_ERROR_BAD_LENGTH are both {@code IBV_WC_REM_INV_REQ_ERR}).
 */
enum EfaIoStatus {
    OK(0, CompletionStatus.OK),
    /** Flushed as the queue pair was destroyed; libfabric: ECANCELED. The SPI has no cancel: never reached its peer. */
    FLUSHED(1, CompletionStatus.LOCAL_ERROR_UNREACH_REMOTE),
    /** libfabric: EINVAL, a local error, as an invalid lkey. */
    LOCAL_ERROR_QP_INTERNAL_ERROR(2, CompletionStatus.LOCAL_ERROR_INVALID_LKEY),
    /** "Bad operation type" in rdma-core 44, "Unsupported operation" later; libfabric: EINVAL. */
    LOCAL_ERROR_UNSUPPORTED_OP(3, CompletionStatus.LOCAL_ERROR_INVALID_LKEY),
    /** libfabric: EINVAL. */
    LOCAL_ERROR_INVALID_AH(4, CompletionStatus.LOCAL_ERROR_INVALID_LKEY),
    LOCAL_ERROR_INVALID_LKEY(5, CompletionStatus.LOCAL_ERROR_INVALID_LKEY),
    LOCAL_ERROR_BAD_LENGTH(6, CompletionStatus.LOCAL_ERROR_BAD_LENGTH),
    REMOTE_ERROR_BAD_ADDRESS(7, CompletionStatus.REMOTE_ERROR_BAD_ADDRESS),
    /** Connection reset by the remote side; libfabric: ECONNABORTED, as an unresponsive remote. */
    REMOTE_ERROR_ABORT(8, CompletionStatus.LOCAL_ERROR_UNRESP_REMOTE),
    REMOTE_ERROR_BAD_DEST_QPN(9, CompletionStatus.REMOTE_ERROR_BAD_DEST_QPN),
    REMOTE_ERROR_RNR(10, CompletionStatus.REMOTE_ERROR_RNR),
    REMOTE_ERROR_BAD_LENGTH(11, CompletionStatus.REMOTE_ERROR_BAD_LENGTH),
    /** Unexpected status from the responder; libfabric: EREMOTEIO. The peer answered, but not sensibly. */
    REMOTE_ERROR_BAD_STATUS(12, CompletionStatus.LOCAL_ERROR_UNRESP_REMOTE),
    LOCAL_ERROR_UNRESP_REMOTE(13, CompletionStatus.LOCAL_ERROR_UNRESP_REMOTE),
    /** No address handle at the target for the initiator, which RDMA needs (after rdma-core 44); libfabric: ENOTCONN. */
    REMOTE_ERROR_UNKNOWN_PEER(14, CompletionStatus.REMOTE_ERROR_BAD_DEST_QPN),
    LOCAL_ERROR_UNREACH_REMOTE(15, CompletionStatus.LOCAL_ERROR_UNREACH_REMOTE),
    REMOTE_ERROR_FEATURE_MISMATCH(18, CompletionStatus.REMOTE_ERROR_FEATURE_MISMATCH);

    private static final EfaIoStatus[] BY_VALUE = new EfaIoStatus[19];

    static {
        for (EfaIoStatus status : values()) {
            BY_VALUE[status.value] = status;
        }
    }

    private final int value;
    private final CompletionStatus spi;

    EfaIoStatus(int value, CompletionStatus spi) {
        this.value = value;
        this.spi = spi;
    }

    /** @return the number in {@code efa_io_comp_status} */
    int value() {
        return value;
    }

    /** @return what the SPI reports for it */
    CompletionStatus spi() {
        return spi;
    }

    /** @return whether the SPI has no status of this number, so that it reports a nearby one */
    boolean narrowed() {
        return spi.value() != value;
    }

    /**
     * @param value a completion's status, as the device wrote it
     * @return its status, or null for a number rdma-core does not define
     */
    static EfaIoStatus of(int value) {
        return value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
    }
}
