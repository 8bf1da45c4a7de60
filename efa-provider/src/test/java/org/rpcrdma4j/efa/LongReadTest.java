package org.rpcrdma4j.efa;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.rpcrdma4j.efa.device.Capability;
import org.rpcrdma4j.efa.device.sim.FaultPlan;
import org.rpcrdma4j.efa.device.sim.SimDeviceConfig;

/**
 * The long-read message subprotocol (EFA RDM protocol v4 §4.1) and its READ_NACK fallback
 * (§4.7, DISCREPANCIES.md B6): chosen at {@code minReadMessageSize} when both handshakes announce
 * RDMA read, reading only once a receive matches, truncating like the other subprotocols, failing
 * at both ends when the read fails, and keeping the message order and the resource machinery
 * intact. The counters tell which subprotocol carried each message.
 */
class LongReadTest {

    private static final int MIN_READ = EndpointConfig.DEFAULT_MIN_READ_MESSAGE_SIZE;
    private static final int SIXTY_FOUR_MIB = 64 << 20;
    /** A small threshold for the tests that send many messages, so that they stay quick. */
    private static final EndpointConfig SMALL_READS = EndpointConfig.DEFAULT.withMinReadMessageSize(32 << 10);
    private static final SimDeviceConfig TIGHT = SimDeviceConfig.DEFAULT.withSendQueueDepth(4).withRecvQueueDepth(16)
            .withFaults(FaultPlan.NONE.withDelay(0, 5_000).withReorder(0.3, 4));
    private static final SimDeviceConfig NO_RDMA_READ =
            SimDeviceConfig.DEFAULT.withCapabilities(EnumSet.of(Capability.RDMA_WRITE));

    @RegisterExtension
    final SeedWatcher seed = new SeedWatcher();

    static Stream<Arguments> sizes() {
        return Stream.of(Arguments.of(MIN_READ - 1, false), Arguments.of(MIN_READ, true),
                Arguments.of(SIXTY_FOUR_MIB, true));
    }

    @ParameterizedTest
    @MethodSource("sizes")
    void messageGoesLongReadFromTheThresholdOn(int size, boolean longRead) {
        final SimPair pair = new SimPair(seed.seed());
        SizesTest.transfer(pair, size, false);
        assertProtocol(pair, longRead);
    }

    @ParameterizedTest
    @MethodSource("sizes")
    void taggedMessageArrivesIntactUnderReorderingAndSmallQueues(int size, boolean longRead) {
        final SimPair pair = new SimPair(seed.seed(), TIGHT, TIGHT, EndpointConfig.DEFAULT, EndpointConfig.DEFAULT);
        SizesTest.transfer(pair, size, true);
        assertProtocol(pair, longRead);
    }

    @Test
    void cqDataAndTagGoWithALongReadMessage() {
        final SimPair pair = new SimPair(seed.seed());
        pair.handshake();
        final ByteBuffer into = ByteBuffer.allocate(MIN_READ);
        pair.b.recvTagged(EfaEndpoint.ADDR_UNSPEC, into, 0x5500, 0xff, 1);
        pair.a.sendTaggedData(pair.aToB, SimPair.pattern(MIN_READ, 3), 0x5577, 0xcafe, 2);
        pair.runUntil(() -> pair.doneA.size() == 1 && pair.doneB.size() == 1);

        final CompletionEntry done = pair.doneB.get(0);
        assertThat(done.ok()).isTrue();
        assertThat(done.tag()).isEqualTo(0x5577);
        assertThat(done.hasCqData()).isTrue();
        assertThat(done.cqData()).isEqualTo(0xcafe);
        assertThat(into.rewind()).isEqualTo(SimPair.pattern(MIN_READ, 3));
        assertProtocol(pair, true);
    }

    @Test
    void unexpectedMessageIsNotReadBeforeAReceiveMatchesIt() {
        final SimPair pair = new SimPair(seed.seed());
        pair.handshake();
        pair.a.send(pair.aToB, SimPair.pattern(MIN_READ, 4), 1);
        pair.runUntil(() -> pair.b.statistics().gauge(EndpointGauge.UNEXPECTED_MESSAGES) == 1);
        for (int i = 0; i < 100; i++) {
            pair.step();
        }
        assertThat(pair.doneA).as("no EOR before a receive matches").isEmpty();
        assertThat(pair.b.statistics().counter(EndpointCounter.LONG_READ_MESSAGES_RECEIVED)).isZero();

        final ByteBuffer into = ByteBuffer.allocate(MIN_READ);
        pair.b.recv(EfaEndpoint.ADDR_UNSPEC, into, 2);
        pair.runUntil(() -> pair.doneA.size() == 1 && pair.doneB.size() == 1);
        assertThat(pair.doneA.get(0).ok()).isTrue();
        assertThat(pair.doneB.get(0).ok()).isTrue();
        assertThat(into.rewind()).isEqualTo(SimPair.pattern(MIN_READ, 4));
        assertProtocol(pair, true);
    }

    @Test
    void aShortReceiveBufferGetsWhatFitsAndMessageTruncated() {
        final SimPair pair = new SimPair(seed.seed());
        pair.handshake();
        final int room = MIN_READ / 2 + 3;
        final ByteBuffer into = ByteBuffer.allocate(room);
        pair.b.recv(EfaEndpoint.ADDR_UNSPEC, into, 1);
        pair.a.send(pair.aToB, SimPair.pattern(MIN_READ, 5), 2);
        pair.runUntil(() -> pair.doneA.size() == 1 && pair.doneB.size() == 1);

        assertThat(pair.doneA.get(0).ok()).isTrue();
        assertThat(pair.doneB.get(0).error()).isEqualTo(EfaErrorCode.MESSAGE_TRUNCATED);
        assertThat(pair.doneB.get(0).length()).isEqualTo(room);
        assertThat(into.rewind()).isEqualTo(SimPair.pattern(MIN_READ, 5).limit(room));
        assertProtocol(pair, true);
    }

    @Test
    void aReceiverThatCannotRegisterAnswersReadNackAndTheMessageGoesLongCts() {
        final SimPair pair = new SimPair(seed.seed(), SimDeviceConfig.DEFAULT,
                SimDeviceConfig.DEFAULT.withMaxRegistrations(0), SMALL_READS, SMALL_READS);
        pair.handshake();
        final int[] sizes = {40_000, 10, 300_000, 9000};
        final List<ByteBuffer> into = new ArrayList<>();
        for (int i = 0; i < sizes.length; i++) {
            into.add(ByteBuffer.allocate(sizes[i]));
            pair.b.recvTagged(EfaEndpoint.ADDR_UNSPEC, into.get(i), 9, 0, i);
        }
        for (int i = 0; i < sizes.length; i++) {
            assertThat(pair.a.sendTagged(pair.aToB, SimPair.pattern(sizes[i], i), 9, i)).isTrue();
        }
        pair.runUntil(() -> pair.doneA.size() == sizes.length && pair.doneB.size() == sizes.length);

        assertMatchedInOrderAndIntact(pair, sizes, into);
        assertThat(pair.b.statistics().counter(EndpointCounter.READ_NACKS_SENT)).isEqualTo(2);
        assertThat(pair.a.statistics().counter(EndpointCounter.READ_NACKS_RECEIVED)).isEqualTo(2);
        assertThat(pair.a.statistics().counter(EndpointCounter.LONG_READ_MESSAGES_SENT)).isEqualTo(2);
        assertThat(pair.a.statistics().counter(EndpointCounter.LONG_CTS_MESSAGES_SENT)).isEqualTo(2);
        assertThat(pair.b.statistics().counter(EndpointCounter.LONG_READ_MESSAGES_RECEIVED)).isZero();
        assertThat(pair.b.statistics().counter(EndpointCounter.ORPHAN_PACKETS))
                .as("the fallback RTM found its receive").isZero();
    }

    @Test
    void aSenderThatCannotRegisterSendsLongCtsAtOnce() {
        final SimPair pair = new SimPair(seed.seed(), SimDeviceConfig.DEFAULT.withMaxRegistrations(0),
                SimDeviceConfig.DEFAULT, EndpointConfig.DEFAULT, EndpointConfig.DEFAULT);
        SizesTest.transfer(pair, MIN_READ, false);
        assertProtocol(pair, false);
        assertThat(pair.b.statistics().counter(EndpointCounter.READ_NACKS_SENT)).isZero();
    }

    @Test
    void aFailedReadEndsTheMessageWithTheErrorAtBothEndsAndTheEndpointsGoOn() {
        final FailingReads[] reads = new FailingReads[1];
        final SimPair pair = new SimPair(seed.seed(), SimDeviceConfig.DEFAULT, SimDeviceConfig.DEFAULT,
                EndpointConfig.DEFAULT, EndpointConfig.DEFAULT, device -> reads[0] = new FailingReads(device));
        pair.handshake();
        final ByteBuffer into = ByteBuffer.allocate(MIN_READ);
        pair.b.recv(EfaEndpoint.ADDR_UNSPEC, into, 1);
        pair.a.send(pair.aToB, SimPair.pattern(MIN_READ, 6), 2);
        pair.runUntil(() -> pair.doneA.size() == 1 && pair.doneB.size() == 1);

        assertThat(pair.doneA.get(0).error()).isEqualTo(EfaErrorCode.REMOTE_ERROR_BAD_ADDRESS);
        assertThat(pair.doneB.get(0).error()).isEqualTo(EfaErrorCode.REMOTE_ERROR_BAD_ADDRESS);
        assertThat(pair.doneB.get(0).length()).isZero();
        assertThat(pair.b.statistics().counter(EndpointCounter.PEER_ERRORS_SENT)).isEqualTo(1);
        assertThat(pair.a.statistics().counter(EndpointCounter.PEER_ERRORS_RECEIVED)).isEqualTo(1);
        assertThat(pair.b.statistics().counter(EndpointCounter.LONG_READ_MESSAGES_RECEIVED)).isZero();
        assertIdle(pair);

        reads[0].failing = false;
        pair.doneA.clear();
        pair.doneB.clear();
        pair.b.recv(EfaEndpoint.ADDR_UNSPEC, into.clear(), 3);
        pair.a.send(pair.aToB, SimPair.pattern(MIN_READ, 7), 4);
        pair.runUntil(() -> pair.doneA.size() == 1 && pair.doneB.size() == 1);
        assertThat(pair.doneA.get(0).ok()).isTrue();
        assertThat(pair.doneB.get(0).ok()).isTrue();
        assertThat(into.rewind()).isEqualTo(SimPair.pattern(MIN_READ, 7));
        assertIdle(pair);
    }

    static Stream<Arguments> withoutRdmaRead() {
        return Stream.of(
                Arguments.of(NO_RDMA_READ, SimDeviceConfig.DEFAULT, EndpointConfig.DEFAULT),
                Arguments.of(SimDeviceConfig.DEFAULT, NO_RDMA_READ, EndpointConfig.DEFAULT),
                Arguments.of(SimDeviceConfig.DEFAULT, SimDeviceConfig.DEFAULT,
                        EndpointConfig.DEFAULT.withRdmaRead(false)));
    }

    @ParameterizedTest
    @MethodSource("withoutRdmaRead")
    void longReadIsNotUsedWhenEitherSideLacksRdmaRead(SimDeviceConfig deviceA, SimDeviceConfig deviceB,
                                                     EndpointConfig configB) {
        final SimPair pair = new SimPair(seed.seed(), deviceA, deviceB, EndpointConfig.DEFAULT, configB);
        SizesTest.transfer(pair, MIN_READ, false);
        assertProtocol(pair, false);
    }

    @Test
    void readsWaitForAFullSendQueueAndMessagesStayInOrder() {
        final SimPair pair = new SimPair(seed.seed(), SimDeviceConfig.DEFAULT,
                SimDeviceConfig.DEFAULT.withSendQueueDepth(1), SMALL_READS, SMALL_READS);
        pair.handshake();
        final int[] sizes = {40_000, 1, 200_000, 33_000, 9000, 70_000, 50_000, 100};
        final List<ByteBuffer> into = new ArrayList<>();
        for (int i = 0; i < sizes.length; i++) {
            into.add(ByteBuffer.allocate(sizes[i]));
            pair.b.recv(EfaEndpoint.ADDR_UNSPEC, into.get(i), i);
        }
        for (int i = 0; i < sizes.length; i++) {
            assertThat(pair.a.send(pair.aToB, SimPair.pattern(sizes[i], i), i)).isTrue();
        }
        pair.runUntil(() -> pair.doneA.size() == sizes.length && pair.doneB.size() == sizes.length);

        assertMatchedInOrderAndIntact(pair, sizes, into);
        assertThat(pair.a.statistics().counter(EndpointCounter.LONG_READ_MESSAGES_SENT)).isEqualTo(5);
        assertThat(pair.b.statistics().counter(EndpointCounter.LONG_READ_MESSAGES_RECEIVED)).isEqualTo(5);
    }

    @Test
    void longReadSurvivesRnrReorderingAndBackoff() {
        final SimDeviceConfig rnr = SimDeviceConfig.DEFAULT.withSendQueueDepth(8).withFaults(
                FaultPlan.NONE.withDelay(0, 3_000).withReorder(0.3, 4).withRnr(0.3));
        final SimPair pair = new SimPair(seed.seed(), rnr, rnr, SMALL_READS, SMALL_READS);
        pair.handshake();
        final int[] sizes = {32 << 10, 5, 100_000, 32 << 10, 70_000, 40_000, 8000, 500_000, 1, 60_000};
        final List<ByteBuffer> into = new ArrayList<>();
        for (int i = 0; i < sizes.length; i++) {
            into.add(ByteBuffer.allocate(sizes[i]));
        }
        // Half the receives come late, so those messages wait in the unexpected queue.
        for (int i = 0; i < sizes.length / 2; i++) {
            pair.b.recv(EfaEndpoint.ADDR_UNSPEC, into.get(i), i);
        }
        for (int i = 0; i < sizes.length; i++) {
            assertThat(pair.a.send(pair.aToB, SimPair.pattern(sizes[i], i), i)).isTrue();
        }
        pair.runUntil(() -> pair.doneB.size() == sizes.length / 2
                && pair.b.statistics().gauge(EndpointGauge.UNEXPECTED_MESSAGES) == sizes.length / 2);
        for (int i = sizes.length / 2; i < sizes.length; i++) {
            pair.b.recv(EfaEndpoint.ADDR_UNSPEC, into.get(i), i);
        }
        pair.runUntil(() -> pair.doneA.size() == sizes.length && pair.doneB.size() == sizes.length);

        assertMatchedInOrderAndIntact(pair, sizes, into);
        assertThat(pair.a.statistics().counter(EndpointCounter.RNR_RETRANSMISSIONS)
                + pair.b.statistics().counter(EndpointCounter.RNR_RETRANSMISSIONS)).isPositive();
        assertThat(pair.a.statistics().counter(EndpointCounter.LONG_READ_MESSAGES_SENT)).isEqualTo(7);
        assertThat(pair.b.statistics().counter(EndpointCounter.LONG_READ_MESSAGES_RECEIVED)).isEqualTo(7);
    }

    /**
     * Receive i was posted before receive i + 1 and message i sent before message i + 1, so with
     * FI_ORDER_SAS receive i holds message i; completions may come in another order (a short
     * message behind a long one completes first).
     */
    private static void assertMatchedInOrderAndIntact(SimPair pair, int[] sizes, List<ByteBuffer> into) {
        assertThat(pair.doneA).allMatch(CompletionEntry::ok);
        assertThat(pair.doneB).allMatch(CompletionEntry::ok);
        for (CompletionEntry done : pair.doneB) {
            final int i = (int) done.context();
            assertThat(done.length()).as("length of message %d", i).isEqualTo(sizes[i]);
            assertThat(into.get(i).rewind().equals(SimPair.pattern(sizes[i], i))).as("bytes of message %d", i).isTrue();
        }
    }

    /** Nothing of a finished message is held at either end. */
    static void assertIdle(SimPair pair) {
        for (EfaEndpoint endpoint : List.of(pair.a, pair.b)) {
            assertThat(endpoint.statistics().gauge(EndpointGauge.REGISTRATIONS)).isZero();
            assertThat(endpoint.statistics().gauge(EndpointGauge.TX_ENTRIES)).isZero();
            assertThat(endpoint.statistics().gauge(EndpointGauge.RX_ENTRIES)).isZero();
        }
    }

    /** One message went long-read (and was read by B) or long-CTS, as the counters tell. */
    private static void assertProtocol(SimPair pair, boolean longRead) {
        assertThat(pair.a.statistics().counter(EndpointCounter.LONG_READ_MESSAGES_SENT)).isEqualTo(longRead ? 1 : 0);
        assertThat(pair.b.statistics().counter(EndpointCounter.LONG_READ_MESSAGES_RECEIVED))
                .isEqualTo(longRead ? 1 : 0);
        assertThat(pair.a.statistics().counter(EndpointCounter.LONG_CTS_MESSAGES_SENT)).isEqualTo(longRead ? 0 : 1);
    }
}
