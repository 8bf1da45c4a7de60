package org.rpcrdma4j.efa;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.rpcrdma4j.efa.device.sim.FaultPlan;
import org.rpcrdma4j.efa.device.sim.SimDeviceConfig;

/**
 * The runting read message subprotocol (EFA RDM protocol v4 §4.5) end to end on the simulated device: chosen
 * from {@code minReadMessageSize} on when both ends read, the peer announced it, no message is being read and
 * the peer's runt budget ({@code runtSize}, libfabric's {@code FI_EFA_RUNT_SIZE}) leaves a runt; the first bytes
 * in RUNTREAD packets, the rest read by the receiver, byte for byte around every threshold, untagged and tagged,
 * plain and under reordering (runt packets out of order), RNR and a one-slot send queue; the runt bytes in
 * flight to a peer bounded; the READ_NACK fallback (§4.7) and a failed read ending at both ends. The counters
 * tell which subprotocol carried each message and how many bytes the endpoints copied (only the runt's).
 */
class RuntReadTest {

    private static final int MIN_READ = 32 << 10;
    private static final int RUNT = 100_000;
    private static final int MIB = 1 << 20;
    /** libfabric's runt size for GPU memory ({@code EFA_DEFAULT_RUNT_SIZE}). */
    private static final int GPU_RUNT = 307_200;
    private static final EndpointConfig RUNTING = EndpointConfig.DEFAULT.withMinReadMessageSize(MIN_READ)
            .withRuntSize(RUNT);
    private static final SimDeviceConfig FAULTY = SimDeviceConfig.DEFAULT.withSendQueueDepth(1)
            .withFaults(FaultPlan.NONE.withDelay(0, 5_000).withReorder(0.3, 4).withRnr(0.3));

    @RegisterExtension
    final SeedWatcher seed = new SeedWatcher();

    /** A message size and the bytes of it that go as runts; 0: not runting read. */
    static Stream<Arguments> sizes() {
        return Stream.of(Arguments.of(MIN_READ - 1, 0), Arguments.of(MIN_READ, MIN_READ),
                Arguments.of(RUNT - 1, RUNT - 8), Arguments.of(RUNT, RUNT), Arguments.of(RUNT + 1, RUNT),
                Arguments.of(MIB - 1, RUNT), Arguments.of(MIB, RUNT), Arguments.of(MIB + 1, RUNT));
    }

    @ParameterizedTest
    @MethodSource("sizes")
    void messageArrivesIntactAndOnlyItsRuntIsCopied(int size, int runt) {
        final SimPair pair = new SimPair(seed.seed(), SimDeviceConfig.DEFAULT, SimDeviceConfig.DEFAULT, RUNTING,
                RUNTING);
        pair.handshake();
        final long sent = copied(pair.a);
        final long received = copied(pair.b);

        transfer(pair, size, false);

        assertRunt(pair, runt > 0);
        assertThat(copied(pair.a) - sent).isEqualTo(runt > 0 ? runt : size);
        assertThat(copied(pair.b) - received).isEqualTo(runt > 0 ? runt : size);
    }

    @ParameterizedTest
    @MethodSource("sizes")
    void taggedMessageArrivesIntactUnderReorderingRnrAndAOneSlotSendQueue(int size, int runt) {
        final SimPair pair = new SimPair(seed.seed(), FAULTY, FAULTY, RUNTING, RUNTING);
        pair.handshake();
        transfer(pair, size, true);
        assertRunt(pair, runt > 0);
    }

    static Stream<Arguments> providerThresholds() {
        return Stream.of(Arguments.of(MIB - 1, false), Arguments.of(MIB, true), Arguments.of(MIB + 1, true));
    }

    /** The provider's thresholds: 1 MiB ({@code FI_EFA_INTER_MIN_READ_MESSAGE_SIZE}), with GPU memory's runt size. */
    @ParameterizedTest
    @MethodSource("providerThresholds")
    void fromOneMibOnWithTheProvidersGpuRuntSize(int size, boolean runting) {
        final EndpointConfig config = EndpointConfig.DEFAULT.withRuntSize(GPU_RUNT);
        final SimPair pair = new SimPair(seed.seed(), SimDeviceConfig.DEFAULT, SimDeviceConfig.DEFAULT, config,
                config);
        pair.handshake();
        final long sent = copied(pair.a);
        transfer(pair, size, false);
        assertRunt(pair, runting);
        assertThat(copied(pair.a) - sent).isEqualTo(runting ? GPU_RUNT : size);
    }

    @Test
    void theHostMemoryDefaultRuntSizeMeansLongRead() {
        final SimPair pair = new SimPair(seed.seed());
        pair.handshake();
        transfer(pair, MIB, false);
        assertThat(pair.a.statistics().counter(EndpointCounter.LONG_READ_MESSAGES_SENT)).isEqualTo(1);
        assertThat(pair.a.statistics().counter(EndpointCounter.RUNT_READ_MESSAGES_SENT)).isZero();
    }

    /**
     * libfabric's {@code num_runt_bytes_in_flight} and {@code num_read_msg_in_flight}: three messages sent at once
     * take the runt budget in turn (all, all, what is left), the fourth goes long-read as the third is being read;
     * once everything is done the budget is whole again.
     */
    @Test
    void theRuntBytesInFlightToAPeerAreBoundedByTheRuntSize() {
        final SimPair pair = new SimPair(seed.seed(), SimDeviceConfig.DEFAULT, SimDeviceConfig.DEFAULT, RUNTING,
                RUNTING);
        pair.handshake();
        final long sent = copied(pair.a);
        final int size = 48 << 10;
        final List<ByteBuffer> into = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            into.add(ByteBuffer.allocate(size));
            pair.b.recv(EfaEndpoint.ADDR_UNSPEC, into.get(i), i);
        }
        for (int i = 0; i < 4; i++) {
            assertThat(pair.a.send(pair.aToB, SimPair.pattern(size, i), i)).isTrue();
        }
        pair.runUntil(() -> pair.doneA.size() == 4 && pair.doneB.size() == 4);

        assertIntact(pair, into, size);
        assertThat(pair.a.statistics().counter(EndpointCounter.RUNT_READ_MESSAGES_SENT)).isEqualTo(3);
        assertThat(pair.a.statistics().counter(EndpointCounter.LONG_READ_MESSAGES_SENT)).isEqualTo(1);
        assertThat(copied(pair.a) - sent).as("the runts: the budget, no more").isEqualTo(RUNT);
        assertThat(pair.b.statistics().counter(EndpointCounter.LONG_READ_MESSAGES_RECEIVED)).isEqualTo(1);

        transfer(pair, MIB, false);
        assertThat(copied(pair.a) - sent).as("the whole budget again").isEqualTo(2L * RUNT);
        assertThat(pair.a.statistics().counter(EndpointCounter.RUNT_READ_MESSAGES_SENT)).isEqualTo(4);
    }

    /** Staged on arrival, copied at the match, and its rest read only then: the sender's EOR waits for the receive. */
    @Test
    void anUnexpectedMessageIsReadOnlyOnceAReceiveMatchesIt() {
        final SimPair pair = new SimPair(seed.seed(), SimDeviceConfig.DEFAULT, SimDeviceConfig.DEFAULT, RUNTING,
                RUNTING);
        pair.handshake();
        final long received = copied(pair.b);
        pair.a.send(pair.aToB, SimPair.pattern(MIB, 4), 1);
        pair.runUntil(() -> pair.b.statistics().gauge(EndpointGauge.UNEXPECTED_MESSAGES) == 1
                && pair.a.statistics().gauge(EndpointGauge.PACKETS_IN_USE) == 0);
        for (int i = 0; i < 100; i++) {
            pair.step();
        }
        assertThat(pair.doneA).as("no EOR before a receive matches").isEmpty();
        assertThat(copied(pair.b) - received).as("the runt, staged").isEqualTo(RUNT);

        final ByteBuffer into = ByteBuffer.allocate(MIB);
        pair.b.recv(EfaEndpoint.ADDR_UNSPEC, into, 2);
        pair.runUntil(() -> pair.doneA.size() == 1 && pair.doneB.size() == 1);
        assertThat(pair.doneA.get(0).ok()).isTrue();
        assertThat(pair.doneB.get(0).ok()).isTrue();
        assertThat(into.rewind()).isEqualTo(SimPair.pattern(MIB, 4));
        assertThat(copied(pair.b) - received).as("staged, then delivered").isEqualTo(2L * RUNT);
        assertRunt(pair, true);
    }

    /** A receive shorter than the runt, and one shorter than the message: what fits, and MESSAGE_TRUNCATED. */
    @ParameterizedTest
    @MethodSource("shortReceives")
    void aShortReceiveBufferGetsWhatFitsAndMessageTruncated(int room) {
        final SimPair pair = new SimPair(seed.seed(), SimDeviceConfig.DEFAULT, SimDeviceConfig.DEFAULT, RUNTING,
                RUNTING);
        pair.handshake();
        final ByteBuffer into = ByteBuffer.allocate(room);
        pair.b.recv(EfaEndpoint.ADDR_UNSPEC, into, 1);
        pair.a.send(pair.aToB, SimPair.pattern(MIB, 5), 2);
        pair.runUntil(() -> pair.doneA.size() == 1 && pair.doneB.size() == 1);

        assertThat(pair.doneA.get(0).ok()).isTrue();
        assertThat(pair.doneB.get(0).error()).isEqualTo(EfaErrorCode.MESSAGE_TRUNCATED);
        assertThat(pair.doneB.get(0).length()).isEqualTo(room);
        assertThat(into.rewind()).isEqualTo(SimPair.pattern(MIB, 5).limit(room));
        assertRunt(pair, true);
        LongReadTest.assertIdle(pair);
    }

    /**
     * A sender that builds one runt packet at a time (one packet buffer for the peer) while the receiver, its
     * buffer shorter than the runt, answers EOR after the first: the rest of the runt still goes, and still
     * describes the buffer, which the EOR let go.
     */
    @Test
    void anEorBeforeTheLastRuntPacketIsBuiltLetsTheRuntFinish() {
        final EndpointConfig onePacket = RUNTING.withLimits(EndpointLimits.DEFAULT.withPerPeerSends(256, 1));
        final SimPair pair = new SimPair(seed.seed(), SimDeviceConfig.DEFAULT, SimDeviceConfig.DEFAULT, onePacket,
                RUNTING);
        pair.handshake();
        final ByteBuffer into = ByteBuffer.allocate(1000);
        pair.b.recv(EfaEndpoint.ADDR_UNSPEC, into, 1);
        pair.a.send(pair.aToB, SimPair.pattern(MIB, 8), 2);
        pair.runUntil(() -> pair.doneA.size() == 1 && pair.doneB.size() == 1);

        assertThat(pair.doneA.get(0).ok()).isTrue();
        assertThat(pair.doneB.get(0).error()).isEqualTo(EfaErrorCode.MESSAGE_TRUNCATED);
        assertThat(into.rewind()).isEqualTo(SimPair.pattern(MIB, 8).limit(1000));
        assertThat(pair.a.statistics().counter(EndpointCounter.PROGRESS_ERRORS)).isZero();
        LongReadTest.assertIdle(pair);
        transfer(pair, MIB, false);
    }

    static Stream<Integer> shortReceives() {
        return Stream.of(RUNT / 2 + 3, MIB / 2 + 3);
    }

    static Stream<Arguments> nackDevices() {
        return Stream.of(Arguments.of(SimDeviceConfig.DEFAULT), Arguments.of(FAULTY));
    }

    /**
     * §4.7: a receiver that cannot register for the reads answers READ_NACK once every runt packet is in; the
     * message goes on as long-CTS after its runt, its LONGCTS_RTM with no data. A message that fits its runt needs
     * no read and no READ_NACK.
     */
    @ParameterizedTest
    @MethodSource("nackDevices")
    void aReceiverThatCannotRegisterAnswersReadNackAndTheMessageGoesLongCts(SimDeviceConfig device) {
        final SimPair pair = new SimPair(seed.seed(), device, device.withMaxRegistrations(0), RUNTING, RUNTING);
        pair.handshake();
        final int[] sizes = {RUNT + 1, 10, MIB, 9000, RUNT, 70_000};
        final List<ByteBuffer> into = new ArrayList<>();
        for (int i = 0; i < sizes.length; i++) {
            into.add(ByteBuffer.allocate(sizes[i]));
            pair.b.recvTagged(EfaEndpoint.ADDR_UNSPEC, into.get(i), 9, 0, i);
        }
        for (int i = 0; i < sizes.length; i++) {
            assertThat(pair.a.sendTagged(pair.aToB, SimPair.pattern(sizes[i], i), 9, i)).isTrue();
            // One at a time, so that each large one runts (none is being read when it is chosen).
            final int done = i + 1;
            pair.runUntil(() -> pair.doneA.size() == done);
        }
        pair.runUntil(() -> pair.doneB.size() == sizes.length);

        assertMatchedInOrderAndIntact(pair, sizes, into);
        assertThat(pair.a.statistics().counter(EndpointCounter.RUNT_READ_MESSAGES_SENT)).isEqualTo(4);
        assertThat(pair.b.statistics().counter(EndpointCounter.READ_NACKS_SENT)).as("not for the runt-only one")
                .isEqualTo(2);
        assertThat(pair.a.statistics().counter(EndpointCounter.READ_NACKS_RECEIVED)).isEqualTo(2);
        assertThat(pair.a.statistics().counter(EndpointCounter.LONG_CTS_MESSAGES_SENT)).isEqualTo(2);
        assertThat(pair.b.statistics().counter(EndpointCounter.ORPHAN_PACKETS))
                .as("the fallback RTM found its receive").isZero();
        LongReadTest.assertIdle(pair);
    }

    @Test
    void aSenderThatCannotRegisterSendsLongCtsAtOnce() {
        final SimPair pair = new SimPair(seed.seed(), SimDeviceConfig.DEFAULT.withMaxRegistrations(0),
                SimDeviceConfig.DEFAULT, RUNTING, RUNTING);
        pair.handshake();
        final long sent = copied(pair.a);
        transfer(pair, MIB, false);
        assertRunt(pair, false);
        assertThat(pair.a.statistics().counter(EndpointCounter.LONG_CTS_MESSAGES_SENT)).isEqualTo(1);
        assertThat(copied(pair.a) - sent).as("no runt reserved for a message that went long-CTS").isEqualTo(MIB);
        transfer(pair, RUNT, false);
        assertThat(copied(pair.a) - sent).isEqualTo(MIB + RUNT);
    }

    @Test
    void aFailedReadEndsTheMessageWithTheErrorAtBothEndsAndTheEndpointsGoOn() {
        final FailingReads[] reads = new FailingReads[1];
        final SimPair pair = new SimPair(seed.seed(), SimDeviceConfig.DEFAULT, SimDeviceConfig.DEFAULT, RUNTING,
                RUNTING, device -> reads[0] = new FailingReads(device));
        pair.handshake();
        final ByteBuffer into = ByteBuffer.allocate(MIB);
        pair.b.recvTagged(EfaEndpoint.ADDR_UNSPEC, into, 3, 0, 1);
        pair.a.sendTagged(pair.aToB, SimPair.pattern(MIB, 6), 3, 2);
        pair.runUntil(() -> pair.doneA.size() == 1 && pair.doneB.size() == 1);

        assertThat(pair.doneA.get(0).error()).isEqualTo(EfaErrorCode.REMOTE_ERROR_BAD_ADDRESS);
        assertThat(pair.doneB.get(0).error()).isEqualTo(EfaErrorCode.REMOTE_ERROR_BAD_ADDRESS);
        assertThat(pair.b.statistics().counter(EndpointCounter.PEER_ERRORS_SENT)).isEqualTo(1);
        assertThat(pair.a.statistics().counter(EndpointCounter.PEER_ERRORS_RECEIVED)).isEqualTo(1);
        for (int i = 0; i < 100; i++) {
            pair.step();
        }
        LongReadTest.assertIdle(pair);

        reads[0].failing = false;
        pair.doneA.clear();
        pair.doneB.clear();
        transfer(pair, MIB, true);
        assertThat(pair.a.statistics().counter(EndpointCounter.RUNT_READ_MESSAGES_SENT)).isEqualTo(2);
    }

    @Test
    void runtingReadIsNotUsedWhenTheReceiverLacksRdmaRead() {
        final SimPair pair = new SimPair(seed.seed(), SimDeviceConfig.DEFAULT, SimDeviceConfig.DEFAULT, RUNTING,
                RUNTING.withRdmaRead(false));
        pair.handshake();
        transfer(pair, MIB, false);
        assertRunt(pair, false);
        assertThat(pair.a.statistics().counter(EndpointCounter.LONG_CTS_MESSAGES_SENT)).isEqualTo(1);
    }

    /** Sends one message of {@code size} bytes A to B and checks every byte; the handshakes are done. */
    private static void transfer(SimPair pair, int size, boolean tagged) {
        pair.doneA.clear();
        pair.doneB.clear();
        final ByteBuffer into = ByteBuffer.allocate(size);
        if (tagged) {
            pair.b.recvTagged(EfaEndpoint.ADDR_UNSPEC, into, 77, 0, 1);
            assertThat(pair.a.sendTagged(pair.aToB, SimPair.pattern(size, size), 77, 2)).isTrue();
        } else {
            pair.b.recv(EfaEndpoint.ADDR_UNSPEC, into, 1);
            assertThat(pair.a.send(pair.aToB, SimPair.pattern(size, size), 2)).isTrue();
        }
        pair.runUntil(() -> pair.doneA.size() == 1 && pair.doneB.size() == 1);

        assertThat(pair.doneA.get(0).ok()).isTrue();
        assertThat(pair.doneB.get(0).ok()).isTrue();
        assertThat(pair.doneB.get(0).length()).isEqualTo(size);
        assertThat(into.rewind().equals(SimPair.pattern(size, size))).as("bytes of a %d-byte message", size).isTrue();
        for (int i = 0; i < 50; i++) {
            pair.step();
        }
        LongReadTest.assertIdle(pair);
    }

    private static void assertIntact(SimPair pair, List<ByteBuffer> into, int size) {
        assertThat(pair.doneA).allMatch(CompletionEntry::ok);
        assertThat(pair.doneB).allMatch(CompletionEntry::ok);
        for (CompletionEntry done : pair.doneB) {
            final int i = (int) done.context();
            assertThat(into.get(i).rewind().equals(SimPair.pattern(size, i))).as("bytes of message %d", i).isTrue();
        }
    }

    private static void assertMatchedInOrderAndIntact(SimPair pair, int[] sizes, List<ByteBuffer> into) {
        assertThat(pair.doneA).allMatch(CompletionEntry::ok);
        assertThat(pair.doneB).allMatch(CompletionEntry::ok);
        for (CompletionEntry done : pair.doneB) {
            final int i = (int) done.context();
            assertThat(done.length()).as("length of message %d", i).isEqualTo(sizes[i]);
            assertThat(into.get(i).rewind().equals(SimPair.pattern(sizes[i], i))).as("bytes of message %d", i).isTrue();
        }
    }

    /** One message went runting read (sent by A, taken by B), or neither runting read nor long-read. */
    private static void assertRunt(SimPair pair, boolean runting) {
        assertThat(pair.a.statistics().counter(EndpointCounter.RUNT_READ_MESSAGES_SENT)).isEqualTo(runting ? 1 : 0);
        assertThat(pair.b.statistics().counter(EndpointCounter.RUNT_READ_MESSAGES_RECEIVED)).isEqualTo(runting ? 1 : 0);
        assertThat(pair.a.statistics().counter(EndpointCounter.LONG_READ_MESSAGES_SENT)).isZero();
    }

    private static long copied(EfaEndpoint endpoint) {
        return endpoint.statistics().counter(EndpointCounter.BYTES_COPIED);
    }
}
