package org.rpcrdma4j.efa;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.rpcrdma4j.efa.CompletionEntry.Kind;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.Capability;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.RmaIov;
import org.rpcrdma4j.efa.device.sim.FaultPlan;
import org.rpcrdma4j.efa.device.sim.SimDeviceConfig;
import org.rpcrdma4j.efa.wire.EagerRtwFlyweight;
import org.rpcrdma4j.efa.wire.ReadRspFlyweight;
import org.rpcrdma4j.efa.wire.ReqOptionalHeadersFlyweight;
import org.rpcrdma4j.efa.wire.RmaIovFlyweight;

/**
 * Emulated RMA (EFA RDM protocol v4 §3.3, §4.1) end to end on the simulated device with its RDMA taken away:
 * each subprotocol at the sizes around its thresholds, byte for byte, with a canary around the target's
 * registration, plain and under reordering, RNR and a one-slot send queue, with and without remote CQ
 * data; and every refused access: nothing touched, the initiator told where the protocol can name its
 * operation. The counters tell which subprotocol carried each operation.
 */
class EmulatedRmaTest {

    private static final SimDeviceConfig NO_RDMA = SimDeviceConfig.DEFAULT.withCapabilities(Set.of());
    private static final SimDeviceConfig READ_ONLY =
            SimDeviceConfig.DEFAULT.withCapabilities(EnumSet.of(Capability.RDMA_READ));
    private static final FaultPlan FAULTS = FaultPlan.NONE.withDelay(0, 4_000).withReorder(0.3, 4).withRnr(0.3);
    /** An EAGER_RTW after the handshake: 8-byte header, one rma_iov, the connid header. */
    private static final int EAGER_MAX = SimDeviceConfig.DEFAULT_MTU - EagerRtwFlyweight.HEADER_LENGTH
            - RmaIovFlyweight.LENGTH - ReqOptionalHeadersFlyweight.CONNID_LENGTH;
    /** The largest SHORT_RTR: below MTU minus the READRSP header. */
    private static final int SHORT_MAX = SimDeviceConfig.DEFAULT_MTU - ReadRspFlyweight.HEADER_LENGTH - 1;
    private static final int MIN_RW = EndpointConfig.DEFAULT_MIN_READ_WRITE_SIZE;
    private static final int MIB = 1 << 20;
    private static final int CANARY = 32;
    private static final byte CANARY_BYTE = 0x5a;

    @RegisterExtension
    final SeedWatcher seed = new SeedWatcher();

    static Stream<Arguments> writesWithoutRdma() {
        return Stream.of(Arguments.of(0, EndpointCounter.EAGER_RTW_WRITES),
                Arguments.of(1, EndpointCounter.EAGER_RTW_WRITES),
                Arguments.of(EAGER_MAX - 1, EndpointCounter.EAGER_RTW_WRITES),
                Arguments.of(EAGER_MAX, EndpointCounter.EAGER_RTW_WRITES),
                Arguments.of(EAGER_MAX + 1, EndpointCounter.LONGCTS_RTW_WRITES),
                Arguments.of(MIB - 1, EndpointCounter.LONGCTS_RTW_WRITES),
                Arguments.of(MIB, EndpointCounter.LONGCTS_RTW_WRITES),
                Arguments.of(MIB + 1, EndpointCounter.LONGCTS_RTW_WRITES));
    }

    static Stream<Arguments> writesWithRdmaRead() {
        return Stream.of(Arguments.of(0, EndpointCounter.EAGER_RTW_WRITES),
                Arguments.of(EAGER_MAX, EndpointCounter.EAGER_RTW_WRITES),
                Arguments.of(EAGER_MAX + 1, EndpointCounter.LONGCTS_RTW_WRITES),
                Arguments.of(MIN_RW - 1, EndpointCounter.LONGCTS_RTW_WRITES),
                Arguments.of(MIN_RW, EndpointCounter.LONGREAD_RTW_WRITES),
                Arguments.of(MIN_RW + 1, EndpointCounter.LONGREAD_RTW_WRITES),
                Arguments.of(MIB - 1, EndpointCounter.LONGREAD_RTW_WRITES),
                Arguments.of(MIB + 1, EndpointCounter.LONGREAD_RTW_WRITES));
    }

    static Stream<Arguments> reads() {
        return Stream.of(Arguments.of(0, EndpointCounter.SHORT_RTR_READS),
                Arguments.of(1, EndpointCounter.SHORT_RTR_READS),
                Arguments.of(SHORT_MAX - 1, EndpointCounter.SHORT_RTR_READS),
                Arguments.of(SHORT_MAX, EndpointCounter.SHORT_RTR_READS),
                Arguments.of(SHORT_MAX + 1, EndpointCounter.LONGCTS_RTR_READS),
                Arguments.of(MIB - 1, EndpointCounter.LONGCTS_RTR_READS),
                Arguments.of(MIB, EndpointCounter.LONGCTS_RTR_READS),
                Arguments.of(MIB + 1, EndpointCounter.LONGCTS_RTR_READS));
    }

    @ParameterizedTest
    @MethodSource("writesWithoutRdma")
    void writeWithoutRdmaLands(int size, EndpointCounter protocol) {
        assertWrite(pair(NO_RDMA), size, false, protocol);
    }

    @ParameterizedTest
    @MethodSource("writesWithoutRdma")
    void writeWithoutRdmaLandsUnderReorderingRnrAndAOneSlotSendQueue(int size, EndpointCounter protocol) {
        assertWrite(pair(faulty(NO_RDMA)), size, false, protocol);
    }

    @ParameterizedTest
    @MethodSource("writesWithRdmaRead")
    void writeWithRdmaReadOnlyLands(int size, EndpointCounter protocol) {
        assertWrite(pair(READ_ONLY), size, false, protocol);
    }

    @ParameterizedTest
    @MethodSource("writesWithRdmaRead")
    void writeWithRdmaReadOnlyLandsUnderReorderingRnrAndAOneSlotSendQueue(int size, EndpointCounter protocol) {
        assertWrite(pair(faulty(READ_ONLY)), size, false, protocol);
    }

    @ParameterizedTest
    @MethodSource("reads")
    void readWithoutRdmaReturnsThePeersBytes(int size, EndpointCounter protocol) {
        assertRead(pair(NO_RDMA), size, protocol);
    }

    @ParameterizedTest
    @MethodSource("reads")
    void readWithoutRdmaReturnsThePeersBytesUnderReorderingRnrAndAOneSlotSendQueue(int size,
                                                                                  EndpointCounter protocol) {
        assertRead(pair(faulty(NO_RDMA)), size, protocol);
    }

    @Test
    void remoteCqDataIsReportedAtTheTargetForEverySubprotocol() {
        // With CQ data the eager limit shrinks by the 8-byte CQ data header; writeData never goes direct.
        assertWrite(pair(SimDeviceConfig.DEFAULT), 100, true, EndpointCounter.EAGER_RTW_WRITES);
        assertWrite(pair(NO_RDMA), EAGER_MAX - 8, true, EndpointCounter.EAGER_RTW_WRITES);
        assertWrite(pair(NO_RDMA), EAGER_MAX - 7, true, EndpointCounter.LONGCTS_RTW_WRITES);
        assertWrite(pair(READ_ONLY), MIB, true, EndpointCounter.LONGREAD_RTW_WRITES);
    }

    @Test
    void directRdmaIsPreferredWhenBothEndsHaveIt() {
        final SimPair pair = pair(SimDeviceConfig.DEFAULT);
        assertWrite(pair, MIB, false, EndpointCounter.DIRECT_WRITES);
        assertRead(pair, MIB, EndpointCounter.DIRECT_READS);
    }

    @Test
    void aTargetThatCannotRegisterAnswersReadNackAndTheWriteGoesLongCts() {
        // The target's one registration is the application's, so the long-read has none for its reads.
        final SimPair pair = new SimPair(seed.seed(), READ_ONLY, READ_ONLY.withMaxRegistrations(1),
                EndpointConfig.DEFAULT, EndpointConfig.DEFAULT);
        assertWrite(pair, MIB, false, EndpointCounter.LONGCTS_RTW_WRITES);
        assertThat(pair.a.statistics().counter(EndpointCounter.LONGREAD_RTW_WRITES)).isEqualTo(1);
        assertThat(pair.a.statistics().counter(EndpointCounter.READ_NACKS_RECEIVED)).isEqualTo(1);
        assertThat(pair.b.statistics().counter(EndpointCounter.READ_NACKS_SENT)).isEqualTo(1);
    }

    @Test
    void aLongReadWriteWhoseReadFailsEndsWithTheErrorAndTouchesNothing() {
        final FailingReads[] reads = new FailingReads[1];
        final SimPair pair = new SimPair(seed.seed(), READ_ONLY, READ_ONLY, EndpointConfig.DEFAULT,
                EndpointConfig.DEFAULT, device -> reads[0] = new FailingReads(device));
        pair.handshake();
        final ByteBuffer target = canaried(MIB);
        final MemoryRegion remote = pair.b.register(slice(target, MIB), EnumSet.of(Access.REMOTE_WRITE));
        final MemoryRegion local = pair.a.register(SimPair.pattern(MIB, 3), Set.of());

        assertThat(pair.a.write(pair.aToB, local, 0, remote.iov(0, MIB), 1)).isTrue();
        pair.runUntil(() -> pair.doneA.size() == 1);

        assertThat(pair.doneA.get(0).error()).isEqualTo(EfaErrorCode.REMOTE_ERROR_BAD_ADDRESS);
        assertThat(pair.doneB).isEmpty();
        assertThat(target).isEqualTo(canaried(MIB));
        assertThat(pair.a.statistics().counter(EndpointCounter.LONGREAD_RTW_WRITES)).isEqualTo(1);
        assertThat(pair.b.statistics().counter(EndpointCounter.PEER_ERRORS_SENT)).isEqualTo(1);
        assertThat(pair.a.statistics().gauge(EndpointGauge.REGISTRATIONS)).isZero();
        assertThat(pair.b.statistics().gauge(EndpointGauge.REGISTRATIONS)).isZero();
        assertThat(pair.b.statistics().gauge(EndpointGauge.RX_ENTRIES)).isZero();

        reads[0].failing = false;
        pair.doneA.clear();
        assertWrite(pair, MIB, false, EndpointCounter.LONGREAD_RTW_WRITES);
    }

    static Stream<Arguments> refusedWrites() {
        return Stream.of(Arguments.of(NO_RDMA, 100), Arguments.of(NO_RDMA, 100_000), Arguments.of(READ_ONLY, MIB));
    }

    @ParameterizedTest
    @MethodSource("refusedWrites")
    void aWriteWithABadKeyBoundsOrRightTouchesNothingAndTheEndpointGoesOn(SimDeviceConfig device, int size) {
        final SimPair pair = pair(device);
        final ByteBuffer target = canaried(size + 1);
        final MemoryRegion writable = pair.b.register(slice(target, size), EnumSet.of(Access.REMOTE_WRITE));
        final MemoryRegion readable = pair.b.register(slice(target, size), EnumSet.of(Access.REMOTE_READ));
        final MemoryRegion source = pair.a.register(SimPair.pattern(size + 1, 1), Set.of());
        final List<RmaIov> refused = List.of(new RmaIov(writable.address(), size, writable.key() + 1000),
                new RmaIov(writable.address() + 1, size, writable.key()), readable.iov(0, size));

        for (RmaIov remote : refused) {
            assertThat(pair.a.write(pair.aToB, source, 0, remote, 1)).isTrue();
            pair.runUntil(() -> pair.doneA.size() == 1);
            // An EAGER_RTW names no operation: its initiator completes at delivery, as the provider's.
            assertThat(pair.doneA.remove(0).error()).isEqualTo(size <= EAGER_MAX ? EfaErrorCode.SUCCESS
                    : EfaErrorCode.REMOTE_ERROR_BAD_ADDRESS);
        }
        assertThat(target).isEqualTo(canaried(size + 1));
        assertThat(pair.b.statistics().counter(EndpointCounter.RMA_ACCESS_REFUSED)).isEqualTo(refused.size());
        assertThat(pair.b.statistics().counter(EndpointCounter.PEER_ERRORS_SENT))
                .isEqualTo(size <= EAGER_MAX ? 0 : refused.size());
        assertThat(pair.b.statistics().counter(EndpointCounter.EMULATED_WRITES_SERVED)).isZero();

        pair.a.write(pair.aToB, source, 0, writable.iov(0, size), 2);
        pair.runUntil(() -> pair.doneA.size() == 1);
        assertThat(pair.doneA.get(0).ok()).isTrue();
        assertThat(slice(target, size)).isEqualTo(SimPair.pattern(size + 1, 1).limit(size));
        assertThat(pair.b.statistics().gauge(EndpointGauge.RX_ENTRIES)).isZero();
        assertThat(pair.a.statistics().gauge(EndpointGauge.TX_ENTRIES)).isZero();
    }

    @ParameterizedTest
    @MethodSource("refusedReadSizes")
    void aReadWithABadKeyBoundsOrRightEndsInBadAddressAndTouchesNothing(int size) {
        final SimPair pair = pair(NO_RDMA);
        final MemoryRegion readable = pair.b.register(SimPair.pattern(size, 2), EnumSet.of(Access.REMOTE_READ));
        final MemoryRegion writable = pair.b.register(ByteBuffer.allocate(size), EnumSet.of(Access.REMOTE_WRITE));
        final ByteBuffer into = canaried(size + 1);
        final MemoryRegion local = pair.a.register(into, EnumSet.of(Access.LOCAL_WRITE));
        final List<RmaIov> refused = List.of(new RmaIov(readable.address(), size, readable.key() + 1000),
                new RmaIov(readable.address(), size + 1, readable.key()), writable.iov(0, size));

        for (RmaIov remote : refused) {
            pair.a.read(pair.aToB, local, 0, remote, 1);
            pair.runUntil(() -> pair.doneA.size() == 1);
            assertThat(pair.doneA.remove(0).error()).isEqualTo(EfaErrorCode.REMOTE_ERROR_BAD_ADDRESS);
        }
        assertThat(into).isEqualTo(canaried(size + 1));
        assertThat(pair.b.statistics().counter(EndpointCounter.RMA_ACCESS_REFUSED)).isEqualTo(refused.size());
        assertThat(pair.a.statistics().counter(EndpointCounter.PEER_ERRORS_RECEIVED)).isEqualTo(refused.size());
        assertThat(pair.a.statistics().gauge(EndpointGauge.RX_ENTRIES)).isZero();
        assertThat(pair.b.statistics().gauge(EndpointGauge.TX_ENTRIES)).isZero();
    }

    static Stream<Integer> refusedReadSizes() {
        return Stream.of(100, 100_000);
    }

    static Stream<Arguments> sixtyFourMib() {
        return Stream.of(Arguments.of(NO_RDMA, false, EndpointCounter.LONGCTS_RTW_WRITES),
                Arguments.of(READ_ONLY, false, EndpointCounter.LONGREAD_RTW_WRITES),
                Arguments.of(SimDeviceConfig.DEFAULT, false, EndpointCounter.DIRECT_WRITES),
                Arguments.of(NO_RDMA, true, EndpointCounter.LONGCTS_RTR_READS),
                Arguments.of(SimDeviceConfig.DEFAULT, true, EndpointCounter.DIRECT_READS));
    }

    /** 64 MiB, the largest size, by every subprotocol that carries it: no window or counter overflows. */
    @ParameterizedTest
    @MethodSource("sixtyFourMib")
    void sixtyFourMibGoesByEverySubprotocolThatCarriesIt(SimDeviceConfig device, boolean read,
                                                         EndpointCounter protocol) {
        if (read) {
            assertRead(pair(device), 64 * MIB, protocol);
        } else {
            assertWrite(pair(device), 64 * MIB, false, protocol);
        }
    }

    @Test
    void aLocalRegionNotRegisteredThroughTheEndpointIsRefusedAtOnce() {
        final SimPair pair = pair(NO_RDMA);
        final MemoryRegion remote = pair.b.register(ByteBuffer.allocate(16), EnumSet.of(Access.REMOTE_WRITE));
        final MemoryRegion foreign = pair.deviceA.registerMemory(ByteBuffer.allocate(16), Set.of());

        pair.a.write(pair.aToB, foreign, 0, remote.iov(0, 16), 1);
        pair.runUntil(() -> pair.doneA.size() == 1);

        assertThat(pair.doneA.get(0).error()).isEqualTo(EfaErrorCode.LOCAL_ERROR_INVALID_LKEY);
    }

    private SimPair pair(SimDeviceConfig device) {
        final SimPair pair = new SimPair(seed.seed(), device, device, EndpointConfig.DEFAULT, EndpointConfig.DEFAULT);
        pair.handshake();
        return pair;
    }

    private static SimDeviceConfig faulty(SimDeviceConfig device) {
        return device.withSendQueueDepth(1).withFaults(FAULTS);
    }

    /** Writes {@code size} bytes A to B into a canaried registration and checks every byte and the completions. */
    private static void assertWrite(SimPair pair, int size, boolean cqData, EndpointCounter protocol) {
        final ByteBuffer target = canaried(size);
        final MemoryRegion remote = pair.b.register(slice(target, size), EnumSet.of(Access.REMOTE_WRITE));
        final MemoryRegion local = pair.a.register(SimPair.pattern(size, size), Set.of());
        final long before = pair.a.statistics().counter(protocol);

        assertThat(cqData ? pair.a.writeData(pair.aToB, local, 0, remote.iov(0, size), 0xc0ffee, 7)
                : pair.a.write(pair.aToB, local, 0, remote.iov(0, size), 7)).isTrue();
        pair.runUntil(() -> pair.doneA.size() == 1 && pair.doneB.size() == (cqData ? 1 : 0));
        for (int i = 0; i < 50; i++) {
            pair.step();
        }

        assertThat(pair.doneA).containsExactly(
                new CompletionEntry(Kind.WRITE, 7, size, 0, 0, false, pair.aToB, EfaErrorCode.SUCCESS));
        final List<CompletionEntry> expectedAtB = new ArrayList<>();
        if (cqData) {
            expectedAtB.add(new CompletionEntry(Kind.REMOTE_WRITE, 0, size, 0, 0xc0ffee, true,
                    pair.doneB.get(0).source(), EfaErrorCode.SUCCESS));
        }
        assertThat(pair.doneB).as("a write reports at its target only with CQ data").isEqualTo(expectedAtB);
        assertThat(slice(target, size).equals(SimPair.pattern(size, size))).as("bytes of a %d-byte write", size)
                .isTrue();
        assertCanary(target, size);
        assertThat(pair.a.statistics().counter(protocol)).as("carried by %s", protocol).isEqualTo(before + 1);
        assertThat(pair.b.statistics().gauge(EndpointGauge.RX_ENTRIES)).isZero();
        assertThat(pair.b.statistics().gauge(EndpointGauge.REGISTRATIONS)).isZero();
        pair.doneA.clear();
        pair.doneB.clear();
    }

    /** Reads {@code size} bytes of B's memory into a canaried region of A and checks every byte. */
    private static void assertRead(SimPair pair, int size, EndpointCounter protocol) {
        final MemoryRegion remote = pair.b.register(SimPair.pattern(size, ~size), EnumSet.of(Access.REMOTE_READ));
        final ByteBuffer into = canaried(size);
        final MemoryRegion local = pair.a.register(slice(into, size), EnumSet.of(Access.LOCAL_WRITE));

        assertThat(pair.a.read(pair.aToB, local, 0, remote.iov(0, size), 8)).isTrue();
        pair.runUntil(() -> pair.doneA.size() == 1);
        for (int i = 0; i < 50; i++) {
            pair.step();
        }

        assertThat(pair.doneA).containsExactly(
                new CompletionEntry(Kind.READ, 8, size, 0, 0, false, pair.aToB, EfaErrorCode.SUCCESS));
        assertThat(pair.doneB).isEmpty();
        assertThat(slice(into, size).equals(SimPair.pattern(size, ~size))).as("bytes of a %d-byte read", size).isTrue();
        assertCanary(into, size);
        assertThat(pair.a.statistics().counter(protocol)).as("carried by %s", protocol).isEqualTo(1);
        assertThat(pair.a.statistics().gauge(EndpointGauge.RX_ENTRIES)).isZero();
        assertThat(pair.b.statistics().gauge(EndpointGauge.TX_ENTRIES)).isZero();
        pair.doneA.clear();
    }

    /** {@code size} zero bytes between two runs of canary bytes. */
    private static ByteBuffer canaried(int size) {
        final ByteBuffer buffer = ByteBuffer.allocate(size + 2 * CANARY);
        for (int i = 0; i < CANARY; i++) {
            buffer.put(i, CANARY_BYTE).put(CANARY + size + i, CANARY_BYTE);
        }
        return buffer;
    }

    private static ByteBuffer slice(ByteBuffer canaried, int size) {
        return canaried.slice(CANARY, size);
    }

    private static void assertCanary(ByteBuffer canaried, int size) {
        for (int i = 0; i < CANARY; i++) {
            assertThat(canaried.get(i)).isEqualTo(CANARY_BYTE);
            assertThat(canaried.get(CANARY + size + i)).isEqualTo(CANARY_BYTE);
        }
    }
}
