package org.rpcrdma4j.transport;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * What a server ({@code RdmaRpcSvc.statistics()}) or a client ({@code RdmaRpcClient.statistics()})
 * holds now and has counted so far: an immutable snapshot, for monitoring and for tests that show
 * nothing leaks. Each figure is exact when read; a snapshot that is not taken on the progress thread
 * may mix figures of consecutive moments. A figure of one role only is 0 for the other, as each
 * component says. What a fabric holds is its own {@link org.rpcrdma4j.fabric.FabricStatistics}.
 *
 * @param connections          connections open now: a server's accepted ones, a client's own (0 or 1)
 * @param callsInProgress      a server's calls received and not yet replied to, their Read chunks
 *                             being pulled or their reply chunks written included, and so are calls
 *                             whose program still runs after their connection closed; a client's calls
 *                             sent and not yet answered
 * @param callsWaiting         a client's calls waiting for a credit
 * @param maxCallsInProgress   the most calls a client ever had sent and unanswered at once
 * @param credits              a client's credit limit now (1 until the first reply, then the grant);
 *                             the grant of a server
 * @param backwardCallsInProgress a server's backward calls (RFC 8167) sent and unanswered or
 *                             waiting for a backward credit; a client's backward calls being served
 * @param maxBackwardCallsInProgress the most backward calls a server ever had outstanding at once on
 *                             one connection
 * @param chunkRegistrations   memory a server or client registered for chunks and holds now
 * @param bytesCopied          bytes a server or client copied, counted where it copies: messages out
 *                             of receive buffers, a call's inline part rebuilt around its Read chunks,
 *                             a reply's inline part (the fabric's RDMA moves are not copies)
 * @param messagesDropped      messages a server or client received and dropped without an answer
 *                             (malformed beyond an answer, unexpected, on a closed connection)
 * @param rdmaErrorsSent       RDMA_ERROR messages a server sent (ERR_VERS, ERR_CHUNK)
 * @param protocolErrors       messages a server received that broke RPC-over-RDMA or RPC: answered
 *                             with RDMA_ERROR or dropped
 * @param connectionsClosedForErrors connections a server closed because they kept breaking the
 *                             protocol ({@link TransportConfig#PROTOCOL_ERRORS_PER_CONNECTION})
 * @param shapes               how a client's calls and their replies travelled, per shape
 */
public record TransportStatistics(int connections, int callsInProgress, int callsWaiting, int maxCallsInProgress,
                                  int credits, int backwardCallsInProgress, int maxBackwardCallsInProgress,
                                  int chunkRegistrations, long bytesCopied, long messagesDropped, long rdmaErrorsSent,
                                  long protocolErrors, long connectionsClosedForErrors,
                                  Map<MessageShape, Long> shapes) {

    /**
     * Copies the map.
     *
     * @param connections                connections
     * @param callsInProgress            calls in progress
     * @param callsWaiting               calls waiting
     * @param maxCallsInProgress         most calls in progress
     * @param credits                    credits
     * @param backwardCallsInProgress    backward calls in progress
     * @param maxBackwardCallsInProgress most backward calls in progress
     * @param chunkRegistrations         registrations
     * @param bytesCopied                bytes copied
     * @param messagesDropped            messages dropped
     * @param rdmaErrorsSent             RDMA_ERRORs sent
     * @param protocolErrors             protocol errors
     * @param connectionsClosedForErrors connections closed for errors
     * @param shapes                     counts per shape; a shape missing reads 0
     */
    public TransportStatistics {
        EnumMap<MessageShape, Long> allShapes = new EnumMap<>(MessageShape.class);
        for (MessageShape shape : MessageShape.values()) {
            allShapes.put(shape, shapes.getOrDefault(shape, 0L));
        }
        shapes = Collections.unmodifiableMap(allShapes);
    }

    /**
     * @param shape a way calls or replies travel
     * @return how many travelled so
     */
    public long shape(MessageShape shape) {
        return shapes.get(shape);
    }
}
