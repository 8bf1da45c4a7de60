package org.rpcrdma4j.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * What a connect or accept carries ({@code struct rdma_conn_param}).
 *
 * @param privateData bytes for the peer in the CM REQ (at most {@link #MAX_CONNECT_PRIVATE_DATA}) or
 *                    REP (at most {@link #MAX_ACCEPT_PRIVATE_DATA}); RPC-over-RDMA puts RFC 8797 data here
 * @param responderResources RDMA Reads this side accepts at once from the peer (0-255)
 * @param initiatorDepth RDMA Reads this side may have outstanding towards the peer (0-255)
 * @param retryCount transport retries before a send fails with RETRY_EXC_ERR (0-7; rdma_rxe takes 7 as
 *                   without end, as the IBA does for RNR retries only)
 * @param rnrRetryCount retries while the peer has no receive posted (0-7; 7 is without limit)
 */
public record ConnectionParameters(byte[] privateData, int responderResources, int initiatorDepth, int retryCount,
                                   int rnrRetryCount) {
    /** Private data room in an IB CM REQ after the RDMA-CM header: what {@code rdma_connect} allows. */
    public static final int MAX_CONNECT_PRIVATE_DATA = 56;
    /** Private data room in an IB CM REP: what {@code rdma_accept} allows. */
    public static final int MAX_ACCEPT_PRIVATE_DATA = 196;
    /** Private data room in an IB CM REJ: what {@code rdma_reject} allows. */
    public static final int MAX_REJECT_PRIVATE_DATA = 148;

    /** Checks the ranges and copies the private data. */
    public ConnectionParameters {
        privateData = privateData == null ? new byte[0] : privateData.clone();
        if (privateData.length > MAX_ACCEPT_PRIVATE_DATA) {
            throw new IllegalArgumentException(privateData.length + " bytes of private data, more than any CM message holds");
        }
        check("responderResources", responderResources, 255);
        check("initiatorDepth", initiatorDepth, 255);
        check("retryCount", retryCount, 7);
        check("rnrRetryCount", rnrRetryCount, 7);
    }

    private static void check(String name, int value, int max) {
        if (value < 0 || value > max) {
            throw new IllegalArgumentException(name + " must be 0.." + max + ", not " + value);
        }
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    /** Lays the parameters out in native memory, the private data behind them. */
    MemorySegment encode(Arena arena, int maxPrivateData) {
        if (privateData.length > maxPrivateData) {
            throw new IllegalArgumentException(privateData.length + " bytes of private data, more than the "
                    + maxPrivateData + " this CM message holds");
        }
        var l = Structs.RDMA_CONN_PARAM;
        MemorySegment param = arena.allocate(l);
        if (privateData.length > 0) {
            MemorySegment data = arena.allocate(privateData.length);
            MemorySegment.copy(privateData, 0, data, JAVA_BYTE, 0, privateData.length);
            param.set(ADDRESS, Structs.offset(l, "private_data"), data);
            param.set(JAVA_BYTE, Structs.offset(l, "private_data_len"), (byte) privateData.length);
        }
        param.set(JAVA_BYTE, Structs.offset(l, "responder_resources"), (byte) responderResources);
        param.set(JAVA_BYTE, Structs.offset(l, "initiator_depth"), (byte) initiatorDepth);
        param.set(JAVA_BYTE, Structs.offset(l, "retry_count"), (byte) retryCount);
        param.set(JAVA_BYTE, Structs.offset(l, "rnr_retry_count"), (byte) rnrRetryCount);
        return param;
    }
}
