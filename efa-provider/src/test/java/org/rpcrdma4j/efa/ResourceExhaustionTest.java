package org.rpcrdma4j.efa;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.rpcrdma4j.efa.device.sim.FaultPlan;
import org.rpcrdma4j.efa.device.sim.SimDeviceConfig;

/**
 * A full send queue, an empty packet pool, receiver-not-ready and backoff are normal events. Messages resume where they stopped and arrive intact and in order; the
 * application sees only completions, and at most a {@code false} from a full TX entry table.
 */
class ResourceExhaustionTest {

    @RegisterExtension
    final SeedWatcher seed = new SeedWatcher();

    @Test
    void mediumMessagesResumeWhenTheSendQueueIsFull() {
        final SimDeviceConfig oneSlot = SimDeviceConfig.DEFAULT.withSendQueueDepth(1);
        final SimPair pair = new SimPair(seed.seed(), oneSlot, SimDeviceConfig.DEFAULT, EndpointConfig.DEFAULT,
                EndpointConfig.DEFAULT);
        EagerMessagingTest.assertMessagesArriveInOrder(pair, 50);
        assertThat(pair.a.statistics().counter(EndpointCounter.QUEUE_FULL_PACKETS)).isPositive();
    }

    @Test
    void messagesResumeWhenThePacketPoolIsEmpty() {
        final EndpointConfig fewPackets = EndpointConfig.DEFAULT.withTxPacketCount(2);
        final SimPair pair = new SimPair(seed.seed(), SimDeviceConfig.DEFAULT, SimDeviceConfig.DEFAULT, fewPackets,
                fewPackets);
        EagerMessagingTest.assertMessagesArriveInOrder(pair, 50);
    }

    @Test
    void aFullTxEntryTableIsEagainNotAnError() {
        final SimPair pair = new SimPair(seed.seed(), SimDeviceConfig.DEFAULT, SimDeviceConfig.DEFAULT,
                EndpointConfig.DEFAULT.withTxEntryCount(2), EndpointConfig.DEFAULT);
        assertThat(pair.a.send(pair.aToB, ByteBuffer.allocate(1), 1)).isTrue();
        assertThat(pair.a.send(pair.aToB, ByteBuffer.allocate(1), 2)).isTrue();
        assertThat(pair.a.send(pair.aToB, ByteBuffer.allocate(1), 3)).isFalse();
        pair.runUntil(() -> pair.doneA.size() == 2);
        assertThat(pair.a.send(pair.aToB, ByteBuffer.allocate(1), 3)).isTrue();
    }

    @Test
    void injectedRnrIsRetriedWithBackoffAndNothingIsLost() {
        final SimDeviceConfig rnr = SimDeviceConfig.DEFAULT.withFaults(
                FaultPlan.NONE.withDelay(0, 3_000).withReorder(0.2, 4).withRnr(0.4));
        final SimPair pair = new SimPair(seed.seed(), rnr, rnr, EndpointConfig.DEFAULT, EndpointConfig.DEFAULT);
        EagerMessagingTest.assertMessagesArriveInOrder(pair, 60);
        assertThat(pair.a.statistics().counter(EndpointCounter.RNR_RETRANSMISSIONS)).isPositive();
        assertThat(pair.a.statistics().counter(EndpointCounter.RNR_BACKOFFS)).isPositive();
        assertThat(pair.doneA).allMatch(CompletionEntry::ok);
    }

    @Test
    void aReceiverShortOfBuffersCausesRnrThatIsAbsorbed() {
        final SimPair pair = new SimPair(seed.seed(), SimDeviceConfig.DEFAULT,
                SimDeviceConfig.DEFAULT.withRecvQueueDepth(2), EndpointConfig.DEFAULT, EndpointConfig.DEFAULT);
        EagerMessagingTest.assertMessagesArriveInOrder(pair, 30);
        assertThat(pair.a.statistics().counter(EndpointCounter.RNR_RETRANSMISSIONS)).isPositive();
    }

    @Test
    void longCtsRunsInManySmallWindowsAndWaitsForAReceiveWhenUnexpected() {
        final EndpointConfig twoCredits = EndpointConfig.DEFAULT.withLongCtsCredits(2);
        final SimPair pair = new SimPair(seed.seed(), SimDeviceConfig.DEFAULT.withSendQueueDepth(3),
                SimDeviceConfig.DEFAULT.withSendQueueDepth(3), twoCredits, twoCredits);
        final int size = 3 << 20;
        pair.a.send(pair.aToB, SimPair.pattern(size, 5), 1);
        pair.runUntil(() -> pair.b.statistics().gauge(EndpointGauge.UNEXPECTED_MESSAGES) == 1);
        for (int i = 0; i < 100; i++) {
            pair.step();
        }
        assertThat(pair.doneA).as("no CTS before a receive matches").isEmpty();

        final ByteBuffer into = ByteBuffer.allocate(size);
        pair.b.recv(EfaEndpoint.ADDR_UNSPEC, into, 2);
        pair.runUntil(() -> pair.doneA.size() == 1 && pair.doneB.size() == 1);
        assertThat(into.rewind().equals(SimPair.pattern(size, 5))).isTrue();
    }
}
