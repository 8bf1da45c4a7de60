package org.rpcrdma4j.transport;

import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a server ({@code RdmaRpcSvc.statistics()}), a client ({@code RdmaRpcClient.statistics()}) or
 * a fabric ({@link org.rpcrdma4j.fabric.Fabric#statistics()}) holds now and has counted so far: an immutable
 * snapshot, for monitoring and for tests that show nothing leaks. Each figure is exact when read;
 * a snapshot that is not taken on the progress thread may mix figures of consecutive moments. A
 * figure that does not apply to its source is 0 (or an empty map), as each component says.
 *
 * @param connections          connections open now: a server's accepted ones, a client's own (0 or
 *                             1), every connection of a fabric
 * @param callsInProgress      a server's calls received and not yet replied to, their Read chunks
 *                             being pulled or their reply chunks written included; a client's calls
 *                             sent and not yet answered
 * @param callsWaiting         a client's calls waiting for a credit
 * @param maxCallsInProgress   the most calls a client ever had sent and unanswered at once
 * @param credits              a client's credit limit now (1 until the first reply, then the grant);
 *                             the grant of a server
 * @param backwardCallsInProgress a server's backward calls (RFC 8167) sent and unanswered or
 *                             waiting for a backward credit; a client's backward calls being served
 * @param maxBackwardCallsInProgress the most backward calls a server ever had outstanding at once on
 *                             one connection
 * @param chunkRegistrations   memory registered now: a server's or client's for chunks; a fabric's
 *                             every registration
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
 * @param fabricCounters       a fabric's own counters by name; for the EFA fabric its endpoint's
 *                             {@code EndpointCounter}s and {@code EfaFabric.PROGRESS_LOOP_FAILURES},
 *                             for verbs RC its {@code RcCounter}s and RDMA-CM events by kind
 * @param fabricGauges         what a fabric's own layer holds now, by name; for the EFA fabric its
 *                             endpoint's {@code EndpointGauge}s, for verbs RC its {@code RcGauge}s
 */
public record TransportStatistics(int connections, int callsInProgress, int callsWaiting, int maxCallsInProgress,
                                  int credits, int backwardCallsInProgress, int maxBackwardCallsInProgress,
                                  int chunkRegistrations, long bytesCopied, long messagesDropped, long rdmaErrorsSent,
                                  long protocolErrors, long connectionsClosedForErrors,
                                  Map<MessageShape, Long> shapes, Map<String, Long> fabricCounters,
                                  Map<String, Long> fabricGauges) {

    /**
     * Copies the maps, keeping their order.
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
     * @param fabricCounters             fabric counters
     * @param fabricGauges               fabric gauges
     */
    public TransportStatistics {
        EnumMap<MessageShape, Long> allShapes = new EnumMap<>(MessageShape.class);
        for (MessageShape shape : MessageShape.values()) {
            allShapes.put(shape, shapes.getOrDefault(shape, 0L));
        }
        shapes = Collections.unmodifiableMap(allShapes);
        fabricCounters = Collections.unmodifiableMap(new LinkedHashMap<>(fabricCounters));
        fabricGauges = Collections.unmodifiableMap(new LinkedHashMap<>(fabricGauges));
    }

    /**
     * A fabric's statistics: the figures of servers and clients are 0.
     *
     * @param connections   the fabric's connections
     * @param registrations its registrations
     * @param counters      its own counters by name, in the order to show them
     * @param gauges        its own gauges by name, in the order to show them
     * @return the snapshot
     */
    public static TransportStatistics ofFabric(int connections, int registrations, Map<String, Long> counters,
                                               Map<String, Long> gauges) {
        return new TransportStatistics(connections, 0, 0, 0, 0, 0, 0, registrations, 0, 0, 0, 0, 0, Map.of(),
                counters, gauges);
    }

    /**
     * @param shape a way calls or replies travel
     * @return how many travelled so
     */
    public long shape(MessageShape shape) {
        return shapes.get(shape);
    }

    /**
     * @param name a counter of the fabric's own, such as an {@code EndpointCounter}'s name
     * @return its value
     * @throws IllegalArgumentException if the fabric has no such counter
     */
    public long fabricCounter(String name) {
        return valueOf(fabricCounters, name, "counter");
    }

    /**
     * @param name a gauge of the fabric's own, such as an {@code EndpointGauge}'s name
     * @return its value
     * @throws IllegalArgumentException if the fabric has no such gauge
     */
    public long fabricGauge(String name) {
        return valueOf(fabricGauges, name, "gauge");
    }

    private static long valueOf(Map<String, Long> values, String name, String kind) {
        Long value = values.get(name);
        if (value == null) {
            throw new IllegalArgumentException("the fabric has no " + kind + " " + name + ": " + values.keySet());
        }
        return value;
    }
}
