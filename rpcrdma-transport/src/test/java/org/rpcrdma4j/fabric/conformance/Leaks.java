package org.rpcrdma4j.fabric.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import org.rpcrdma4j.fabric.Fabric;
import org.rpcrdma4j.fabric.FabricStatistics;

/** The kit's check that a closed fabric holds nothing, by its statistics alone. */
public final class Leaks {

    private Leaks() {
    }

    /**
     * Asserts that a closed fabric holds nothing: no connection, no registration, every gauge of its
     * own at 0.
     *
     * @param fabric a closed fabric
     */
    public static void assertNoneIn(Fabric fabric) {
        FabricStatistics statistics = fabric.statistics();
        assertThat(statistics.connections()).as("connections of %s", fabric.localAddress()).isZero();
        assertThat(statistics.registrations()).as("registrations of %s", fabric.localAddress()).isZero();
        assertThat(statistics.gauges()).as("gauges of %s", fabric.localAddress())
                .allSatisfy((gauge, value) -> assertThat(value).as(gauge).isZero());
    }
}
