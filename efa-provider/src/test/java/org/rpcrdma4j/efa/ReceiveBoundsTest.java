package org.rpcrdma4j.efa;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.rpcrdma4j.efa.device.sim.SimDeviceConfig;

/**
 * What a peer can make a receiver hold is bounded: a medium message longer than the receiver's
 * medium limit is refused before anything is sized from its {@code msg_length}, and messages that
 * arrive before any receive hold RX entries, so once the table is full further ones are dropped.
 */
class ReceiveBoundsTest {

    @RegisterExtension
    final SeedWatcher seed = new SeedWatcher();

    @Test
    void mediumMessageOverTheReceiversLimitIsRefusedAndLaterMessagesStillArrive() {
        final SimPair pair = new SimPair(seed.seed(), SimDeviceConfig.DEFAULT, SimDeviceConfig.DEFAULT,
                EndpointConfig.DEFAULT.withMediumMaxSize(128 << 10), EndpointConfig.DEFAULT);
        pair.handshake();
        final ByteBuffer tooLong = SimPair.pattern(100 << 10, 1);
        final ByteBuffer small = SimPair.pattern(10, 2);
        final ByteBuffer into = ByteBuffer.allocate(100 << 10);
        pair.b.recv(EfaEndpoint.ADDR_UNSPEC, into, 1);

        pair.a.send(pair.aToB, tooLong, 2);
        pair.a.send(pair.aToB, small, 3);
        pair.runUntil(() -> pair.doneA.size() == 2 && pair.doneB.size() == 1);

        assertThat(pair.b.statistics().counter(EndpointCounter.MALFORMED_PACKETS)).isEqualTo(1);
        assertThat(pair.doneB.get(0).ok()).isTrue();
        assertThat(pair.doneB.get(0).length()).isEqualTo(10);
        assertThat(into.limit(10)).isEqualTo(small);
    }

    @Test
    void unexpectedMessagesBeyondTheRxTableAreDroppedAndTheQueuedOnesStillDrain() {
        final SimPair pair = new SimPair(seed.seed(), SimDeviceConfig.DEFAULT, SimDeviceConfig.DEFAULT,
                EndpointConfig.DEFAULT, EndpointConfig.DEFAULT.withRxEntryCount(4));
        pair.handshake();
        for (int i = 0; i < 10; i++) {
            assertThat(pair.a.send(pair.aToB, SimPair.pattern(100, i), i)).isTrue();
        }
        pair.runUntil(() -> pair.doneA.size() == 10);
        assertThat(pair.b.statistics().gauge(EndpointGauge.UNEXPECTED_MESSAGES)).isEqualTo(4);
        assertThat(pair.b.statistics().counter(EndpointCounter.UNEXPECTED_DROPPED_MESSAGES)).isEqualTo(6);

        // The table is full of unexpected messages, yet receives still take them.
        final ByteBuffer[] into = new ByteBuffer[4];
        for (int i = 0; i < 4; i++) {
            into[i] = ByteBuffer.allocate(100);
            assertThat(pair.b.recv(EfaEndpoint.ADDR_UNSPEC, into[i], i)).isTrue();
        }
        pair.runUntil(() -> pair.doneB.size() == 4);
        for (int i = 0; i < 4; i++) {
            assertThat(into[i]).isEqualTo(SimPair.pattern(100, i));
        }
        assertThat(pair.b.statistics().gauge(EndpointGauge.UNEXPECTED_MESSAGES)).isZero();

        // With entries free again, the next message finds its receive.
        final ByteBuffer last = ByteBuffer.allocate(100);
        assertThat(pair.b.recv(EfaEndpoint.ADDR_UNSPEC, last, 9)).isTrue();
        pair.a.send(pair.aToB, SimPair.pattern(100, 42), 42);
        pair.runUntil(() -> pair.doneB.size() == 5);
        assertThat(last).isEqualTo(SimPair.pattern(100, 42));
    }

    @Test
    void unexpectedMessagesAreBoundedPerPeerAndInTotalAndTheKeptOnesStillDrain() {
        final SimNet net = new SimNet(seed.seed());
        final EndpointLimits limits = EndpointLimits.DEFAULT.withUnexpectedPerPeer(3, 1 << 20)
                .withUnexpectedTotal(5, 1 << 20);
        final EfaEndpoint receiver = net.add(1, SimDeviceConfig.DEFAULT, EndpointConfig.DEFAULT.withLimits(limits));
        final EfaEndpoint first = net.add(2, SimDeviceConfig.DEFAULT, EndpointConfig.DEFAULT);
        final EfaEndpoint second = net.add(3, SimDeviceConfig.DEFAULT, EndpointConfig.DEFAULT);
        final long fromFirst = first.insert(receiver.address());
        for (int i = 0; i < 10; i++) {
            first.send(fromFirst, SimPair.pattern(100, i), i);
        }
        net.runUntil(() -> net.done(first).size() == 10);
        final long fromSecond = second.insert(receiver.address());
        for (int i = 0; i < 10; i++) {
            second.send(fromSecond, SimPair.pattern(100, 100 + i), i);
        }
        net.runUntil(() -> net.done(second).size() == 10);

        // Three from the first (its own limit), two from the second (the total's rest).
        assertThat(receiver.statistics().gauge(EndpointGauge.UNEXPECTED_MESSAGES)).isEqualTo(5);
        assertThat(receiver.statistics().gauge(EndpointGauge.UNEXPECTED_BYTES)).isEqualTo(500);
        assertThat(receiver.statistics().counter(EndpointCounter.UNEXPECTED_DROPPED_MESSAGES)).isEqualTo(15);
        for (int i = 0; i < 5; i++) {
            receiver.recv(EfaEndpoint.ADDR_UNSPEC, ByteBuffer.allocate(100), i);
        }
        net.runUntil(() -> net.done(receiver).size() == 5);
        assertThat(net.done(receiver)).allMatch(CompletionEntry::ok);
        assertThat(receiver.statistics().gauge(EndpointGauge.UNEXPECTED_MESSAGES)).isZero();
        assertThat(receiver.statistics().gauge(EndpointGauge.UNEXPECTED_BYTES)).isZero();
        assertThat(receiver.statistics().gauge(EndpointGauge.RX_ENTRIES)).isZero();
    }

    @Test
    void droppedMessagesAreReportedOncePerPeerAndTagWithTheBoundTheyMet() {
        final SimNet net = new SimNet(seed.seed());
        final EndpointLimits limits = EndpointLimits.DEFAULT.withUnexpectedPerPeer(3, 1 << 20)
                .withUnexpectedTotal(5, 1 << 20);
        final EfaEndpoint receiver = net.add(1, SimDeviceConfig.DEFAULT, EndpointConfig.DEFAULT.withLimits(limits));
        final EfaEndpoint first = net.add(2, SimDeviceConfig.DEFAULT, EndpointConfig.DEFAULT);
        final EfaEndpoint second = net.add(3, SimDeviceConfig.DEFAULT, EndpointConfig.DEFAULT);
        final long fromFirst = first.insert(receiver.address());
        for (int i = 0; i < 10; i++) {
            first.sendTagged(fromFirst, SimPair.pattern(100, i), 7, i);
        }
        net.runUntil(() -> net.done(first).size() == 10);
        final long fromSecond = second.insert(receiver.address());
        for (int i = 0; i < 10; i++) {
            second.send(fromSecond, SimPair.pattern(100, 100 + i), i);
        }
        net.runUntil(() -> net.done(second).size() == 10);

        final List<DroppedMessages> reports = new ArrayList<>();
        assertThat(receiver.pollDropped(reports::add)).isEqualTo(2);
        assertThat(reports.get(0)).returns(true, DroppedMessages::tagged).returns(7L, DroppedMessages::tag)
                .returns(7, DroppedMessages::messages).returns(3, DroppedMessages::unexpected)
                .returns(DroppedMessages.Bound.MESSAGES_PER_PEER, DroppedMessages::bound)
                .returns(3L, DroppedMessages::limit);
        assertThat(reports.get(1)).returns(false, DroppedMessages::tagged).returns(0L, DroppedMessages::tag)
                .returns(8, DroppedMessages::messages).returns(2, DroppedMessages::unexpected)
                .returns(DroppedMessages.Bound.MESSAGES_TOTAL, DroppedMessages::bound)
                .returns(5L, DroppedMessages::limit);
        assertThat(reports.get(0).source()).isNotEqualTo(reports.get(1).source());
        assertThat(receiver.pollDropped(reports::add)).as("each drop is reported once").isZero();
    }

    @Test
    void bytesOverThePerPeerLimitAreDroppedBeforeAnythingIsStaged() {
        final SimPair pair = new SimPair(seed.seed(), SimDeviceConfig.DEFAULT, SimDeviceConfig.DEFAULT,
                EndpointConfig.DEFAULT, EndpointConfig.DEFAULT.withLimits(
                        EndpointLimits.DEFAULT.withUnexpectedPerPeer(100, 150_000)));
        for (int i = 0; i < 5; i++) {
            pair.a.send(pair.aToB, SimPair.pattern(60_000, i), i);
        }
        pair.runUntil(() -> pair.doneA.size() == 5);
        assertThat(pair.b.statistics().gauge(EndpointGauge.UNEXPECTED_MESSAGES)).isEqualTo(2);
        assertThat(pair.b.statistics().gauge(EndpointGauge.UNEXPECTED_BYTES)).isEqualTo(120_000);
        assertThat(pair.b.statistics().counter(EndpointCounter.UNEXPECTED_DROPPED_MESSAGES)).isEqualTo(3);
    }
}
