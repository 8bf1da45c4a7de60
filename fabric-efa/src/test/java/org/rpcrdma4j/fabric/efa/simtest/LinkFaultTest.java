package org.rpcrdma4j.fabric.efa.simtest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.efa.EndpointConfig;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.EndpointLimits;
import org.rpcrdma4j.efa.device.sim.FaultPlan;
import org.rpcrdma4j.fabric.efa.SimulatedEfa;
import org.rpcrdma4j.transport.RdmaTransportException;

/**
 * Faults put on a link while the network runs ({@link SimulatedEfa#setLinkFaults}) act on what one fabric
 * sends to another, and go when cleared ({@link SimulatedEfa#clearLinkFaults}).
 */
class LinkFaultTest {

    private static final long SEED = Long.getLong("rpcrdma4j.seed", 8166_23);
    private static final long DELAY_NS = 5_000_000;
    private static final int CALLS = 64;
    /**
     * A peer in RNR is retried within 0.1 ms of virtual time: the progress thread parks while it waits,
     * so a short wait in virtual time keeps the test short.
     */
    private static final EndpointConfig RETRY_SOON = EndpointConfig.DEFAULT
            .withRnrBackoff(SimulatedEfa.STEP_NS, 10 * SimulatedEfa.STEP_NS, 100 * SimulatedEfa.STEP_NS);
    /** ... and declared unreachable after 20 ms of it. */
    private static final EndpointConfig GIVE_UP_SOON =
            RETRY_SOON.withLimits(EndpointLimits.DEFAULT.withPeerUnreachableNs(20_000_000));

    @Test
    void aDelayedLinkDelaysEachMessageByItsDelayInVirtualTime() throws Exception {
        try (Served served = served(SimulatedEfa.start(SEED))) {
            served.ping();
            FaultPlan delay = FaultPlan.NONE.withDelay(DELAY_NS, DELAY_NS);
            served.network.setLinkFaults(served.clientFabric, served.serverFabric, delay);
            served.network.setLinkFaults(served.serverFabric, served.clientFabric, delay);

            long before = served.network.nowNs();
            served.ping();
            assertThat(served.network.nowNs() - before).as("virtual time of a call and its reply")
                    .isGreaterThanOrEqualTo(2 * DELAY_NS);
        }
    }

    @Test
    void reorderedPacketsAreHeldUntilTheirTurnAndEveryCallIsAnswered() throws Exception {
        try (Served served = served(SimulatedEfa.start(SEED))) {
            FaultPlan reorder = FaultPlan.NONE.withReorder(1, 8);
            served.network.setLinkFaults(served.clientFabric, served.serverFabric, reorder);
            served.network.setLinkFaults(served.serverFabric, served.clientFabric, reorder);

            served.echoConcurrently(CALLS);
            assertThat(Served.counter(served.serverFabric, EndpointCounter.REORDERED_PACKETS)
                    + Served.counter(served.clientFabric, EndpointCounter.REORDERED_PACKETS)).isPositive();
        }
    }

    @Test
    void receiverNotReadyByChanceIsRetriedAndCostsNoCall() throws Exception {
        try (Served served = served(SimulatedEfa.builder(SEED).withEndpointConfig(RETRY_SOON).start())) {
            served.network.setLinkFaults(served.clientFabric, served.serverFabric, FaultPlan.NONE.withRnr(0.5));

            served.echoConcurrently(CALLS);
            assertThat(Served.counter(served.clientFabric, EndpointCounter.RNR_RETRANSMISSIONS)).isPositive();
            assertThat(Served.counter(served.clientFabric, EndpointCounter.PEERS_UNREACHABLE)).isZero();
        }
    }

    @Test
    void aCallToAServerThatStoppedReceivingGoesThroughOnceTheFaultIsCleared() throws Exception {
        try (Served served = served(SimulatedEfa.builder(SEED).withEndpointConfig(RETRY_SOON).start())) {
            served.ping();
            served.network.setLinkFaults(served.clientFabric, served.serverFabric, FaultPlan.NONE.withRnr(1));
            CompletableFuture<byte[]> call = served.echoAsync(new byte[] {7});
            Served.waitFor(() -> Served.counter(served.clientFabric, EndpointCounter.RNR_RETRANSMISSIONS) > 10);
            assertThat(call).isNotDone();

            served.network.clearLinkFaults(served.clientFabric, served.serverFabric);
            assertThat(call.get(Served.HANG_GUARD_S, TimeUnit.SECONDS)).containsExactly(7);
        }
    }

    @Test
    void aServerThatStoppedReceivingIsDeclaredUnreachableAndTheCallFailsWithoutATimeout() throws Exception {
        try (Served served = served(SimulatedEfa.builder(SEED).withEndpointConfig(GIVE_UP_SOON).start())) {
            served.ping();
            served.network.setLinkFaults(served.clientFabric, served.serverFabric, FaultPlan.NONE.withRnr(1));

            CompletableFuture<byte[]> call = served.echoAsync(new byte[] {7});
            assertThat(call).failsWithin(Served.HANG_GUARD_S, TimeUnit.SECONDS).withThrowableOfType(Exception.class)
                    .havingRootCause().isInstanceOf(RdmaTransportException.class);
            assertThat(Served.counter(served.clientFabric, EndpointCounter.PEERS_UNREACHABLE)).isEqualTo(1);
            Served.waitFor(() -> served.clientFabric.statistics().connections() == 0);
        }
    }

    private static Served served(SimulatedEfa network) throws Exception {
        return new Served(network, network.newFabric(), network.newFabric());
    }
}
