package org.rpcrdma4j.fabric.rc;

import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.rpcrdma4j.fabric.FabricStatistics;
import org.rpcrdma4j.verbs.CmEventType;

/**
 * What an {@link RcFabric} holds and has counted.
 *
 * @param connections   connections open now
 * @param registrations registrations held now
 * @param events        every {@link RcCounter}'s count
 * @param cmEvents      the RDMA-CM events received, by kind
 * @param levels        every {@link RcGauge}'s value now
 */
public record RcFabricStatistics(int connections, int registrations, Map<RcCounter, Long> events,
                                 Map<CmEventType, Long> cmEvents, Map<RcGauge, Long> levels)
        implements FabricStatistics {

    /**
     * Copies the maps; a key missing from them reads 0.
     *
     * @param connections   connections
     * @param registrations registrations
     * @param events        counts
     * @param cmEvents      RDMA-CM events
     * @param levels        gauges
     */
    public RcFabricStatistics {
        events = copy(events, RcCounter.class);
        cmEvents = copy(cmEvents, CmEventType.class);
        levels = copy(levels, RcGauge.class);
    }

    /**
     * @param counter an event the fabric counts
     * @return how often it had happened
     */
    public long counter(RcCounter counter) {
        return events.get(counter);
    }

    /**
     * @param type a kind of RDMA-CM event
     * @return how many of it the fabric had received
     */
    public long cmEvents(CmEventType type) {
        return cmEvents.get(type);
    }

    /**
     * @param gauge something the fabric holds
     * @return how much of it the fabric held
     */
    public long gauge(RcGauge gauge) {
        return levels.get(gauge);
    }

    /** @return the {@link RcCounter#BYTES_COPIED} count: messages through slots, chunks through copies */
    @Override
    public long bytesCopied() {
        return counter(RcCounter.BYTES_COPIED);
    }

    /** @return the {@link RcCounter}s by name, then the RDMA-CM events under what {@code rdma_event_str} calls them */
    @Override
    public Map<String, Long> counters() {
        Map<String, Long> counters = new LinkedHashMap<>();
        events.forEach((counter, value) -> counters.put(counter.name(), value));
        cmEvents.forEach((type, value) -> counters.put(type.description(), value));
        return Collections.unmodifiableMap(counters);
    }

    /** @return the {@link RcGauge}s by name */
    @Override
    public Map<String, Long> gauges() {
        Map<String, Long> gauges = new LinkedHashMap<>();
        levels.forEach((gauge, value) -> gauges.put(gauge.name(), value));
        return Collections.unmodifiableMap(gauges);
    }

    private static <K extends Enum<K>> Map<K, Long> copy(Map<K, Long> values, Class<K> type) {
        EnumMap<K, Long> copy = new EnumMap<>(type);
        for (K key : type.getEnumConstants()) {
            copy.put(key, values.getOrDefault(key, 0L));
        }
        return Collections.unmodifiableMap(copy);
    }
}
