package org.rpcrdma4j.efa;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
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

        assertThat(pair.b.counter(EndpointCounter.MALFORMED_PACKETS)).isEqualTo(1);
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
        assertThat(pair.b.gauge(EndpointGauge.UNEXPECTED_MESSAGES)).isEqualTo(4);
        assertThat(pair.b.counter(EndpointCounter.UNEXPECTED_DROPPED_MESSAGES)).isEqualTo(6);

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
        assertThat(pair.b.gauge(EndpointGauge.UNEXPECTED_MESSAGES)).isZero();

        // With entries free again, the next message finds its receive.
        final ByteBuffer last = ByteBuffer.allocate(100);
        assertThat(pair.b.recv(EfaEndpoint.ADDR_UNSPEC, last, 9)).isTrue();
        pair.a.send(pair.aToB, SimPair.pattern(100, 42), 42);
        pair.runUntil(() -> pair.doneB.size() == 5);
        assertThat(last).isEqualTo(SimPair.pattern(100, 42));
    }
}
