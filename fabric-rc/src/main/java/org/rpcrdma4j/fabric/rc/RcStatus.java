package org.rpcrdma4j.fabric.rc;

import org.rpcrdma4j.fabric.FabricStatus;
import org.rpcrdma4j.verbs.CmEventType;
import org.rpcrdma4j.verbs.WcStatus;

/**
 * The one table from what verbs report, work completion statuses and RDMA-CM events, to the
 * transport's {@link FabricStatus}. On an RC queue pair any failed completion puts the queue pair
 * in the error state, so each failure also ends its connection whatever its status's scope.
 */
final class RcStatus {

    private RcStatus() {
    }

    /**
     * @param status a work completion's status
     * @return the transport's name for it
     */
    static FabricStatus of(WcStatus status) {
        return switch (status) {
            case SUCCESS -> FabricStatus.SUCCESS;
            case WR_FLUSH_ERR -> FabricStatus.FLUSHED;
            // A message longer than the posted receive.
            case LOC_LEN_ERR -> FabricStatus.MESSAGE_TOO_LONG;
            case LOC_PROT_ERR, LOC_ACCESS_ERR -> FabricStatus.LOCAL_PROTECTION;
            // The peer refused the R_key, address or length (or, for a Send, had no room for it).
            case REM_ACCESS_ERR, REM_INV_REQ_ERR -> FabricStatus.REMOTE_ACCESS;
            case RNR_RETRY_EXC_ERR -> FabricStatus.RECEIVER_NOT_READY;
            // No acknowledgement within the retries: the peer is gone.
            case RETRY_EXC_ERR, RESP_TIMEOUT_ERR -> FabricStatus.PEER_UNREACHABLE;
            default -> FabricStatus.FABRIC_ERROR;
        };
    }

    /**
     * @param type an RDMA-CM event on a connection's id
     * @return how it ends the connection, or null if it does not end it
     */
    static FabricStatus ending(CmEventType type) {
        return switch (type) {
            case DISCONNECTED, TIMEWAIT_EXIT -> FabricStatus.CLOSED;
            case REJECTED -> FabricStatus.REFUSED;
            case ADDR_ERROR, ROUTE_ERROR, UNREACHABLE, CONNECT_ERROR -> FabricStatus.PEER_UNREACHABLE;
            case DEVICE_REMOVAL, UNKNOWN -> FabricStatus.FABRIC_ERROR;
            case ADDR_RESOLVED, ROUTE_RESOLVED, CONNECT_REQUEST, CONNECT_RESPONSE, ESTABLISHED, MULTICAST_JOIN,
                 MULTICAST_ERROR, ADDR_CHANGE -> null;
        };
    }
}
