package org.rpcrdma4j.fabric.efa;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.efa.EfaErrorCode;
import org.rpcrdma4j.fabric.FabricStatus;
import org.rpcrdma4j.transport.RdmaTransportException.Scope;

/** The table from the endpoint's completion errors to the transport's statuses, and what each takes down. */
class EfaStatusTest {

    @Test
    void everyEndpointErrorHasAStatusAndAScope() {
        Map<EfaErrorCode, FabricStatus> expected = new EnumMap<>(EfaErrorCode.class);
        expected.put(EfaErrorCode.SUCCESS, FabricStatus.SUCCESS);
        expected.put(EfaErrorCode.MESSAGE_TRUNCATED, FabricStatus.MESSAGE_TOO_LONG);
        expected.put(EfaErrorCode.REMOTE_ERROR_BAD_LENGTH, FabricStatus.MESSAGE_TOO_LONG);
        expected.put(EfaErrorCode.LOCAL_ERROR_INVALID_LKEY, FabricStatus.LOCAL_PROTECTION);
        expected.put(EfaErrorCode.LOCAL_ERROR_BAD_LENGTH, FabricStatus.LOCAL_PROTECTION);
        expected.put(EfaErrorCode.REMOTE_ERROR_BAD_ADDRESS, FabricStatus.REMOTE_ACCESS);
        expected.put(EfaErrorCode.REMOTE_ERROR_RNR, FabricStatus.RECEIVER_NOT_READY);
        expected.put(EfaErrorCode.REMOTE_ERROR_BAD_DEST_QPN, FabricStatus.PEER_UNREACHABLE);
        expected.put(EfaErrorCode.LOCAL_ERROR_UNRESP_REMOTE, FabricStatus.PEER_UNREACHABLE);
        expected.put(EfaErrorCode.LOCAL_ERROR_UNREACH_REMOTE, FabricStatus.PEER_UNREACHABLE);
        expected.put(EfaErrorCode.PEER_UNREACHABLE, FabricStatus.PEER_UNREACHABLE);
        expected.put(EfaErrorCode.PEER_RESTARTED, FabricStatus.PEER_UNREACHABLE);
        expected.put(EfaErrorCode.CANCELED, FabricStatus.FLUSHED);
        expected.put(EfaErrorCode.REMOTE_ERROR_FEATURE_MISMATCH, FabricStatus.FABRIC_ERROR);
        expected.put(EfaErrorCode.PEER_LACKS_FEATURE, FabricStatus.FABRIC_ERROR);
        expected.put(EfaErrorCode.OTHER, FabricStatus.FABRIC_ERROR);
        assertThat(expected).containsOnlyKeys(EfaErrorCode.values());
        expected.forEach((error, status) -> assertThat(EfaFabric.status(error)).as("%s", error).isEqualTo(status));
    }

    @Test
    void onlyWhatConcernsOneMessageOrOneLocalBufferIsACallError() {
        for (FabricStatus status : FabricStatus.values()) {
            Scope expected = switch (status) {
                case SUCCESS -> null;
                case MESSAGE_TOO_LONG, LOCAL_PROTECTION -> Scope.CALL;
                default -> Scope.CONNECTION;
            };
            assertThat(status.scope()).as("%s", status).isEqualTo(expected);
        }
    }
}
