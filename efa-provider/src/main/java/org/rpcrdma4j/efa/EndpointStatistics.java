package org.rpcrdma4j.efa;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * What an {@link EfaEndpoint} has counted and holds: every {@link EndpointCounter} and every
 * {@link EndpointGauge}, read at one moment on the endpoint's thread, or a moment old on another
 * ({@link EfaEndpoint#statistics()}). Immutable; take a new one to see later values.
 *
 * @param counters every counter's value, in the enum's order
 * @param gauges   every gauge's value, in the enum's order
 */
public record EndpointStatistics(Map<EndpointCounter, Long> counters, Map<EndpointGauge, Long> gauges) {

    /**
     * Copies the maps; a counter or gauge missing from them reads 0.
     *
     * @param counters the counters' values
     * @param gauges   the gauges' values
     */
    public EndpointStatistics {
        counters = Collections.unmodifiableMap(copy(counters, EndpointCounter.class));
        gauges = Collections.unmodifiableMap(copy(gauges, EndpointGauge.class));
    }

    /**
     * @param counter an event the endpoint counts
     * @return how often it had happened
     */
    public long counter(EndpointCounter counter) {
        return counters.get(counter);
    }

    /**
     * @param gauge something the endpoint holds
     * @return how much of it the endpoint held
     */
    public long gauge(EndpointGauge gauge) {
        return gauges.get(gauge);
    }

    private static <K extends Enum<K>> EnumMap<K, Long> copy(Map<K, Long> values, Class<K> type) {
        EnumMap<K, Long> copy = new EnumMap<>(type);
        for (K key : type.getEnumConstants()) {
            copy.put(key, values.getOrDefault(key, 0L));
        }
        return copy;
    }
}
