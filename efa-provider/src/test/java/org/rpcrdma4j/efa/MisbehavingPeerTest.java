package org.rpcrdma4j.efa;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.rpcrdma4j.efa.device.sim.FaultPlan;
import org.rpcrdma4j.efa.device.sim.SimDeviceConfig;

/**
 * A misbehaving peer costs only itself: a server serves a well-behaved client
 * ({@link PingPong}) while another peer floods it with messages on a tag it never receives, or
 * stops receiving what the server sends it. The good client's count of completed calls keeps
 * rising in every window of the attack, what the server holds for the attacker stays within
 * {@link EndpointLimits}, and once the attacker is removed the server holds what it held before.
 * Time is virtual and only drives the simulation; nothing is asserted about it.
 */
class MisbehavingPeerTest {

    private static final long BAD_TAG = 0xBAD;
    private static final int FLOOD = 2000;
    private static final int FLOOD_SIZE = 60_000;
    private static final int WINDOW_STEPS = 500;

    @RegisterExtension
    final SeedWatcher seed = new SeedWatcher();

    @Test
    void aFloodOnATagNoReceiveTakesIsBoundedAndDroppedWhileTheGoodClientKeepsGoing() {
        final SimNet net = new SimNet(seed.seed());
        final EfaEndpoint server = net.add(1, SimDeviceConfig.DEFAULT, EndpointConfig.DEFAULT);
        final EfaEndpoint good = net.add(2, SimDeviceConfig.DEFAULT, EndpointConfig.DEFAULT);
        final EfaEndpoint attacker = net.add(3, SimDeviceConfig.DEFAULT, EndpointConfig.DEFAULT);
        final PingPong calls = new PingPong(net, server, good);
        net.runUntil(() -> calls.roundTrips() >= 2);
        final Map<EndpointGauge, Long> baseline = quiet(net, calls, server);
        calls.restart();

        final Flood flood = new Flood(net, attacker, server);
        final EndpointLimits limits = EndpointLimits.DEFAULT;
        long lastRoundTrips = calls.roundTrips();
        while (!flood.done()) {
            for (int i = 0; i < WINDOW_STEPS; i++) {
                net.step();
                assertThat(server.statistics().gauge(EndpointGauge.UNEXPECTED_BYTES))
                        .isLessThanOrEqualTo(limits.unexpectedBytesPerPeer());
                assertThat(server.statistics().gauge(EndpointGauge.UNEXPECTED_MESSAGES))
                        .isLessThanOrEqualTo(limits.unexpectedMessagesPerPeer());
            }
            assertThat(calls.roundTrips()).as("good calls completed in the window").isGreaterThan(lastRoundTrips);
            lastRoundTrips = calls.roundTrips();
        }
        assertThat(server.statistics().counter(EndpointCounter.UNEXPECTED_DROPPED_MESSAGES)).isPositive();
        assertThat(server.statistics().counter(EndpointCounter.UNEXPECTED_MESSAGES)
                + server.statistics().counter(EndpointCounter.UNEXPECTED_DROPPED_MESSAGES)).isEqualTo(FLOOD);

        server.remove(server.insert(attacker.address()));
        assertThat(quiet(net, calls, server)).isEqualTo(baseline);
    }

    @Test
    void messagesOnAnUndeclaredTagAreDroppedAtOnce() {
        final SimNet net = new SimNet(seed.seed());
        final EfaEndpoint server = net.add(1, SimDeviceConfig.DEFAULT, EndpointConfig.DEFAULT.withTags(PingPong.TAG));
        final EfaEndpoint good = net.add(2, SimDeviceConfig.DEFAULT, EndpointConfig.DEFAULT);
        final EfaEndpoint attacker = net.add(3, SimDeviceConfig.DEFAULT, EndpointConfig.DEFAULT);
        final PingPong calls = new PingPong(net, server, good);
        final Flood flood = new Flood(net, attacker, server);
        final long toServer = attacker.insert(server.address());
        attacker.send(toServer, ByteBuffer.allocate(10), 1);  // untagged: undeclared too

        long lastRoundTrips = calls.roundTrips();
        while (!flood.done()) {
            net.run(WINDOW_STEPS);
            assertThat(server.statistics().gauge(EndpointGauge.UNEXPECTED_MESSAGES)).isZero();
            assertThat(calls.roundTrips()).as("good calls completed in the window").isGreaterThan(lastRoundTrips);
            lastRoundTrips = calls.roundTrips();
        }
        net.runUntil(() -> server.statistics().counter(EndpointCounter.UNDECLARED_TAG_MESSAGES) == FLOOD + 1);
        assertThat(server.statistics().counter(EndpointCounter.UNEXPECTED_MESSAGES)).isZero();
        assertThat(server.statistics().gauge(EndpointGauge.UNEXPECTED_BYTES)).isZero();
    }

    @Test
    void aPeerStuckInRnrHoldsOnlyItsShareAndIsDeclaredUnreachableWhileTheGoodClientKeepsGoing() {
        final SimNet net = new SimNet(seed.seed());
        final EndpointConfig serverConfig = EndpointConfig.DEFAULT.withRnrBackoff(40_000, 120_000, 2_000_000)
                .withLimits(EndpointLimits.DEFAULT.withPeerUnreachableNs(20_000_000));
        final EfaEndpoint server = net.add(1, SimDeviceConfig.DEFAULT, serverConfig);
        final EfaEndpoint good = net.add(2, SimDeviceConfig.DEFAULT, EndpointConfig.DEFAULT);
        final EfaEndpoint stuck = net.add(3, SimDeviceConfig.DEFAULT, EndpointConfig.DEFAULT);
        final PingPong calls = new PingPong(net, server, good);
        net.runUntil(() -> calls.roundTrips() >= 2);
        final Map<EndpointGauge, Long> baseline = quiet(net, calls, server);
        calls.restart();
        // Every packet to the stuck peer comes back receiver-not-ready.
        net.fabric.setLinkFaults(net.devices.get(server), net.devices.get(stuck), FaultPlan.NONE.withRnr(1));

        final long toStuck = server.insert(stuck.address());
        int accepted = 0;
        while (server.send(toStuck, SimPair.pattern(20_000, accepted), accepted)) {
            accepted++;
        }
        assertThat(accepted).isEqualTo(EndpointLimits.DEFAULT_SENDS_PER_PEER);
        assertThat(server.statistics().gauge(EndpointGauge.TX_ENTRIES))
                .isLessThan(EndpointConfig.DEFAULT.txEntryCount());

        final List<CompletionEntry> serverDone = net.done(server);
        long lastRoundTrips = calls.roundTrips();
        while (serverDone.size() < accepted) {
            for (int i = 0; i < WINDOW_STEPS; i++) {
                net.step();
                assertThat(server.statistics().gauge(EndpointGauge.PACKETS_IN_USE))
                        .isLessThanOrEqualTo(EndpointLimits.DEFAULT_PACKETS_PER_PEER + 4);
            }
            assertThat(calls.roundTrips()).as("good calls completed in the window").isGreaterThan(lastRoundTrips);
            lastRoundTrips = calls.roundTrips();
        }
        assertThat(serverDone).extracting(CompletionEntry::error).containsOnly(EfaErrorCode.PEER_UNREACHABLE);
        assertThat(server.statistics().counter(EndpointCounter.PEERS_UNREACHABLE)).isEqualTo(1);
        assertThat(server.statistics().counter(EndpointCounter.RNR_BACKOFFS)).isPositive();
        serverDone.clear();
        // What is started with it later ends at once.
        assertThat(server.send(toStuck, ByteBuffer.allocate(1), -1)).isTrue();
        server.poll(serverDone::add, 1);
        assertThat(serverDone).singleElement().extracting(CompletionEntry::error)
                .isEqualTo(EfaErrorCode.PEER_UNREACHABLE);

        server.remove(toStuck);
        assertThat(quiet(net, calls, server)).isEqualTo(baseline);
    }

    /** Lets the good client finish its call and the wire drain; @return the server's gauges then */
    private static Map<EndpointGauge, Long> quiet(SimNet net, PingPong calls, EfaEndpoint server) {
        calls.stop();
        net.runUntil(() -> !calls.outstanding() && net.fabric.inFlight() == 0
                && server.statistics().gauge(EndpointGauge.PACKETS_IN_USE) == 0);
        net.run(10);
        final Map<EndpointGauge, Long> values = new EnumMap<>(EndpointGauge.class);
        for (EndpointGauge gauge : EndpointGauge.values()) {
            values.put(gauge, server.statistics().gauge(gauge));
        }
        return values;
    }

    /** An attacker that sends {@link #FLOOD} medium messages on a tag the server never receives on. */
    private static final class Flood {
        private final EfaEndpoint attacker;
        private final long toServer;
        private final List<CompletionEntry> completed;
        private int sent;

        Flood(SimNet net, EfaEndpoint attacker, EfaEndpoint server) {
            this.attacker = attacker;
            this.toServer = attacker.insert(server.address());
            this.completed = net.done(attacker);
            net.everyStep(this::send);
        }

        private void send() {
            while (sent < FLOOD && attacker.sendTagged(toServer, ByteBuffer.allocate(FLOOD_SIZE), BAD_TAG, sent)) {
                sent++;
            }
        }

        /** @return whether every message has been delivered to the server's device */
        boolean done() {
            return completed.stream().filter(entry -> entry.kind() == CompletionEntry.Kind.TAGGED_SEND).count() == FLOOD;
        }
    }
}
