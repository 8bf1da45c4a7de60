package org.rpcrdma4j.efa;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.rpcrdma4j.efa.device.sim.FaultPlan;
import org.rpcrdma4j.efa.device.sim.SimDeviceConfig;

/**
 * {@link EndpointCounter#BYTES_COPIED} counts every copy of payload the endpoint makes, exactly: a sent
 * message into its packets, a received one out of them, once more each for a message held before its
 * receive and a packet held for the reorder window; nothing that the device moves.
 */
class BytesCopiedTest {

    @RegisterExtension
    final SeedWatcher seed = new SeedWatcher();

    private SimPair pair;

    @BeforeEach
    void setUp() {
        pair = new SimPair(seed.seed());
    }

    /** A size of each subprotocol, the counter that shows it was used, and the bytes each end copies. */
    static Stream<Arguments> subprotocols() {
        return Stream.of(Arguments.of(1_000, EndpointCounter.EAGER_MESSAGES_SENT, 1_000),
                Arguments.of(20_000, EndpointCounter.MEDIUM_MESSAGES_SENT, 20_000),
                Arguments.of(100_000, EndpointCounter.LONG_CTS_MESSAGES_SENT, 100_000),
                // The receiver's device reads the sender's buffer: no copy at either end.
                Arguments.of(EndpointConfig.DEFAULT_MIN_READ_MESSAGE_SIZE, EndpointCounter.LONG_READ_MESSAGES_SENT, 0));
    }

    @ParameterizedTest
    @MethodSource("subprotocols")
    void eachEndCopiesAMessageOnceBetweenItsBufferAndThePackets(int size, EndpointCounter subprotocol, long copies) {
        pair.handshake();
        final long sent = copied(pair.a);
        final long received = copied(pair.b);
        final long messages = count(pair.a, subprotocol);

        final ByteBuffer into = ByteBuffer.allocate(size);
        pair.b.recv(EfaEndpoint.ADDR_UNSPEC, into, 1);
        pair.a.send(pair.aToB, SimPair.pattern(size, size), 2);
        pair.runUntil(() -> pair.doneA.size() == 1 && pair.doneB.size() == 1);

        assertThat(pair.doneB.get(0).ok()).isTrue();
        assertThat(into.rewind()).isEqualTo(SimPair.pattern(size, size));
        assertThat(count(pair.a, subprotocol) - messages).isEqualTo(1);
        assertThat(copied(pair.a) - sent).isEqualTo(copies);
        assertThat(copied(pair.b) - received).isEqualTo(copies);
    }

    static Stream<Arguments> unexpected() {
        return Stream.of(Arguments.of(1_000, EndpointCounter.EAGER_MESSAGES_SENT),
                Arguments.of(20_000, EndpointCounter.MEDIUM_MESSAGES_SENT));
    }

    /** Counted twice at the receiver: into the staging copy on arrival, out of it into the receive at the match. */
    @ParameterizedTest
    @MethodSource("unexpected")
    void aMessageBeforeItsReceiveIsCopiedIntoItsStagingCopyThenIntoTheReceive(int size, EndpointCounter subprotocol) {
        pair.handshake();
        final long sent = copied(pair.a);
        final long received = copied(pair.b);
        final long messages = count(pair.a, subprotocol);

        pair.a.send(pair.aToB, SimPair.pattern(size, size), 1);
        pair.runUntil(() -> pair.doneA.size() == 1);
        assertThat(pair.b.statistics().gauge(EndpointGauge.UNEXPECTED_MESSAGES)).isEqualTo(1);
        assertThat(copied(pair.b) - received).as("held").isEqualTo(size);

        final ByteBuffer into = ByteBuffer.allocate(size);
        pair.b.recv(EfaEndpoint.ADDR_UNSPEC, into, 2);
        pair.runUntil(() -> pair.doneB.size() == 1);

        assertThat(into.rewind()).isEqualTo(SimPair.pattern(size, size));
        assertThat(count(pair.a, subprotocol) - messages).isEqualTo(1);
        assertThat(copied(pair.a) - sent).isEqualTo(size);
        assertThat(copied(pair.b) - received).as("held, then delivered").isEqualTo(2L * size);
    }

    @Test
    void aTruncatedMessageCopiesOnlyWhatFitsTheReceive() {
        pair.handshake();
        final long sent = copied(pair.a);
        final long received = copied(pair.b);

        pair.b.recv(EfaEndpoint.ADDR_UNSPEC, ByteBuffer.allocate(400), 1);
        pair.a.send(pair.aToB, SimPair.pattern(1_000, 1), 2);
        pair.runUntil(() -> pair.doneA.size() == 1 && pair.doneB.size() == 1);

        assertThat(pair.doneB.get(0).error()).isEqualTo(EfaErrorCode.MESSAGE_TRUNCATED);
        assertThat(copied(pair.a) - sent).isEqualTo(1_000);
        assertThat(copied(pair.b) - received).isEqualTo(400);
    }

    @Test
    void aPacketTheReorderWindowHoldsIsCopiedOnceMore() {
        final SimDeviceConfig reordering = SimDeviceConfig.DEFAULT.withFaults(
                FaultPlan.NONE.withDelay(0, 20_000).withReorder(0.5, 8));
        final SimPair shuffled = new SimPair(seed.seed(), reordering, SimDeviceConfig.DEFAULT, EndpointConfig.DEFAULT,
                EndpointConfig.DEFAULT);
        shuffled.handshake();
        final long sent = copied(shuffled.a);
        final long received = copied(shuffled.b);
        final long reordered = count(shuffled.b, EndpointCounter.REORDERED_PACKETS);

        final int count = 100;
        final int size = 1_000;
        for (int i = 0; i < count; i++) {
            shuffled.b.recv(EfaEndpoint.ADDR_UNSPEC, ByteBuffer.allocate(size), i);
        }
        for (int i = 0; i < count; i++) {
            assertThat(shuffled.a.send(shuffled.aToB, SimPair.pattern(size, i), i)).isTrue();
        }
        shuffled.runUntil(() -> shuffled.doneA.size() == count && shuffled.doneB.size() == count);

        final long held = count(shuffled.b, EndpointCounter.REORDERED_PACKETS) - reordered;
        assertThat(held).as("eager packets the reorder window held").isPositive();
        assertThat(copied(shuffled.a) - sent).isEqualTo((long) count * size);
        assertThat(copied(shuffled.b) - received).isEqualTo((count + held) * size);
    }

    private static long copied(EfaEndpoint endpoint) {
        return count(endpoint, EndpointCounter.BYTES_COPIED);
    }

    private static long count(EfaEndpoint endpoint, EndpointCounter counter) {
        return endpoint.statistics().counter(counter);
    }
}
