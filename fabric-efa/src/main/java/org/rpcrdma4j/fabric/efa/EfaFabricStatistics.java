package org.rpcrdma4j.fabric.efa;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.EndpointStatistics;
import org.rpcrdma4j.fabric.FabricStatistics;

/**
 * What an {@link EfaFabric} holds and has counted.
 *
 * @param connections          connections open now
 * @param registrations        registrations held now
 * @param endpoint             its endpoint's counters and gauges
 * @param device               what its endpoint's device counts of its own, by name ({@link
 *                             org.rpcrdma4j.efa.EfaEndpoint#deviceCounters()}; none on the simulated device)
 * @param progressLoopFailures the times its progress loop caught a failure of the fabric's work and went on
 * @param overrunConnections   connections it ended because their peer sent more than their receives held
 */
public record EfaFabricStatistics(int connections, int registrations, EndpointStatistics endpoint,
                                  Map<String, Long> device, long progressLoopFailures, long overrunConnections)
        implements FabricStatistics {

    /** The name of {@link #progressLoopFailures} among {@link #counters()}. */
    public static final String PROGRESS_LOOP_FAILURES = "PROGRESS_LOOP_FAILURES";
    /** The name of {@link #overrunConnections} among {@link #counters()}. */
    public static final String OVERRUN_CONNECTIONS = "OVERRUN_CONNECTIONS";
    /** What precedes the name of each of {@link #device}'s counters among {@link #counters()}. */
    public static final String DEVICE_PREFIX = "DEVICE_";

    /** Copies the device's counters. */
    public EfaFabricStatistics {
        device = Collections.unmodifiableMap(new LinkedHashMap<>(device));
    }

    /**
     * @return the endpoint's {@link EndpointCounter#BYTES_COPIED}, its connections' messages and the
     *     fabric's control messages: the fabric hands the endpoint the transport's buffers as they are
     */
    @Override
    public long bytesCopied() {
        return endpoint.counter(EndpointCounter.BYTES_COPIED);
    }

    /**
     * @return the endpoint's counters by their names, then {@link #PROGRESS_LOOP_FAILURES} and
     *     {@link #OVERRUN_CONNECTIONS}, then the device's, each named {@link #DEVICE_PREFIX} and its name
     *     (a device's names may be an endpoint's too: both count {@code PEERS_UNREACHABLE})
     */
    @Override
    public Map<String, Long> counters() {
        Map<String, Long> counters = new LinkedHashMap<>();
        endpoint.counters().forEach((counter, value) -> counters.put(counter.name(), value));
        counters.put(PROGRESS_LOOP_FAILURES, progressLoopFailures);
        counters.put(OVERRUN_CONNECTIONS, overrunConnections);
        device.forEach((name, value) -> counters.put(DEVICE_PREFIX + name, value));
        return Collections.unmodifiableMap(counters);
    }

    /** @return the endpoint's gauges by their names */
    @Override
    public Map<String, Long> gauges() {
        Map<String, Long> gauges = new LinkedHashMap<>();
        endpoint.gauges().forEach((gauge, value) -> gauges.put(gauge.name(), value));
        return Collections.unmodifiableMap(gauges);
    }
}
