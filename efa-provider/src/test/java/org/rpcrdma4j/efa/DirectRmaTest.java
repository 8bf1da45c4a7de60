package org.rpcrdma4j.efa;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.rpcrdma4j.efa.CompletionEntry.Kind;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.Capability;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.sim.FaultPlan;
import org.rpcrdma4j.efa.device.sim.SimDeviceConfig;

/** Direct RDMA read and write, chosen when both handshakes announce the feature, emulation otherwise. */
class DirectRmaTest {

    private static final int SIZE = 1 << 20;

    @RegisterExtension
    final SeedWatcher seed = new SeedWatcher();

    @Test
    void readTriggersTheHandshakeThenReadsThePeersMemory() {
        final SimPair pair = new SimPair(seed.seed());
        final ByteBuffer remote = SimPair.pattern(SIZE, 1);
        final MemoryRegion remoteRegion = pair.b.register(remote, EnumSet.of(Access.REMOTE_READ));
        final ByteBuffer local = ByteBuffer.allocate(SIZE);
        final MemoryRegion localRegion = pair.a.register(local, EnumSet.of(Access.LOCAL_WRITE));

        assertThat(pair.a.read(pair.aToB, localRegion, 0, remoteRegion.iov(0, SIZE), 7)).isTrue();
        pair.runUntil(() -> pair.doneA.size() == 1);

        assertThat(pair.doneA.get(0)).isEqualTo(new CompletionEntry(Kind.READ, 7, SIZE, 0, 0, false, pair.aToB,
                EfaErrorCode.SUCCESS));
        assertThat(local).isEqualTo(SimPair.pattern(SIZE, 1));
        assertThat(pair.b.statistics().counter(EndpointCounter.HANDSHAKES_SENT)).isEqualTo(1);
    }

    @Test
    void readsAndWritesAllLandUnderReorderingRnrAndAOneSlotSendQueue() {
        final SimDeviceConfig faulty = SimDeviceConfig.DEFAULT.withSendQueueDepth(1)
                .withFaults(FaultPlan.NONE.withDelay(0, 4_000).withReorder(0.3, 4).withRnr(0.3));
        final SimPair pair = new SimPair(seed.seed(), faulty, faulty, EndpointConfig.DEFAULT, EndpointConfig.DEFAULT);
        final int pieces = 8;
        final int piece = SIZE / pieces;
        final ByteBuffer source = SimPair.pattern(SIZE, 3);
        final MemoryRegion sourceAtB = pair.b.register(source, EnumSet.of(Access.REMOTE_READ));
        final ByteBuffer target = ByteBuffer.allocate(SIZE);
        final MemoryRegion targetAtB = pair.b.register(target, EnumSet.of(Access.REMOTE_WRITE));
        final ByteBuffer readInto = ByteBuffer.allocate(SIZE);
        final MemoryRegion readIntoAtA = pair.a.register(readInto, EnumSet.of(Access.LOCAL_WRITE));
        final MemoryRegion writeFromAtA = pair.a.register(SimPair.pattern(SIZE, 4), Set.of());

        // Sixteen operations on a one-slot send queue: all but one wait their turn in the endpoint.
        for (int i = 0; i < pieces; i++) {
            assertThat(pair.a.read(pair.aToB, readIntoAtA, (long) i * piece, sourceAtB.iov((long) i * piece, piece), i))
                    .isTrue();
            assertThat(pair.a.write(pair.aToB, writeFromAtA, (long) i * piece, targetAtB.iov((long) i * piece, piece),
                    pieces + i)).isTrue();
        }
        pair.runUntil(() -> pair.doneA.size() == 2 * pieces);

        assertThat(pair.doneA).allMatch(CompletionEntry::ok);
        assertThat(pair.doneA.stream().mapToLong(CompletionEntry::context).sorted().toArray())
                .containsExactly(java.util.stream.LongStream.range(0, 2 * pieces).toArray());
        assertThat(readInto).isEqualTo(SimPair.pattern(SIZE, 3));
        assertThat(target).isEqualTo(SimPair.pattern(SIZE, 4));
    }

    @Test
    void writePutsLocalBytesIntoThePeersMemory() {
        final SimPair pair = new SimPair(seed.seed());
        final ByteBuffer remote = ByteBuffer.allocate(SIZE);
        final MemoryRegion remoteRegion = pair.b.register(remote, EnumSet.of(Access.REMOTE_WRITE));
        final MemoryRegion localRegion = pair.a.register(SimPair.pattern(SIZE, 2), Set.of());

        assertThat(pair.a.write(pair.aToB, localRegion, 0, remoteRegion.iov(0, SIZE), 8)).isTrue();
        pair.runUntil(() -> pair.doneA.size() == 1);

        assertThat(pair.doneA.get(0).kind()).isEqualTo(Kind.WRITE);
        assertThat(pair.doneA.get(0).ok()).isTrue();
        assertThat(remote).isEqualTo(SimPair.pattern(SIZE, 2));
    }

    @Test
    void aReadGoesEmulatedWhenThePeerDidNotAnnounceRdmaRead() {
        final SimPair pair = new SimPair(seed.seed(), SimDeviceConfig.DEFAULT,
                SimDeviceConfig.DEFAULT.withCapabilities(EnumSet.of(Capability.RDMA_WRITE)),
                EndpointConfig.DEFAULT, EndpointConfig.DEFAULT);
        final ByteBuffer local = ByteBuffer.allocate(16);
        final MemoryRegion localRegion = pair.a.register(local, EnumSet.of(Access.LOCAL_WRITE));
        final MemoryRegion remoteRegion = pair.b.register(SimPair.pattern(16, 5), EnumSet.of(Access.REMOTE_READ));

        pair.a.read(pair.aToB, localRegion, 0, remoteRegion.iov(0, 16), 1);
        pair.runUntil(() -> pair.doneA.size() == 1);

        assertThat(pair.doneA.get(0).ok()).isTrue();
        assertThat(local).isEqualTo(SimPair.pattern(16, 5));
        assertThat(pair.a.statistics().counter(EndpointCounter.SHORT_RTR_READS)).isEqualTo(1);
        assertThat(pair.a.statistics().counter(EndpointCounter.DIRECT_READS)).isZero();
    }

    @Test
    void aWriteGoesEmulatedWhenThePeerTurnedRdmaWriteOff() {
        final SimPair pair = new SimPair(seed.seed(), SimDeviceConfig.DEFAULT, SimDeviceConfig.DEFAULT,
                EndpointConfig.DEFAULT, EndpointConfig.DEFAULT.withRdmaWrite(false));
        final MemoryRegion localRegion = pair.a.register(SimPair.pattern(16, 6), Set.of());
        final ByteBuffer remote = ByteBuffer.allocate(16);
        final MemoryRegion remoteRegion = pair.b.register(remote, EnumSet.of(Access.REMOTE_WRITE));

        pair.a.write(pair.aToB, localRegion, 0, remoteRegion.iov(0, 16), 1);
        pair.runUntil(() -> pair.doneA.size() == 1);

        assertThat(pair.doneA.get(0).ok()).isTrue();
        assertThat(remote).isEqualTo(SimPair.pattern(16, 6));
        assertThat(pair.a.statistics().counter(EndpointCounter.EAGER_RTW_WRITES)).isEqualTo(1);
        assertThat(pair.a.statistics().counter(EndpointCounter.DIRECT_WRITES)).isZero();
    }

    @Test
    void aWriteGoesEmulatedWhenThisDeviceLacksRdmaWrite() {
        final SimPair pair = new SimPair(seed.seed(),
                SimDeviceConfig.DEFAULT.withCapabilities(EnumSet.of(Capability.RDMA_READ)), SimDeviceConfig.DEFAULT,
                EndpointConfig.DEFAULT, EndpointConfig.DEFAULT);
        final MemoryRegion localRegion = pair.a.register(SimPair.pattern(16, 7), Set.of());
        final ByteBuffer remote = ByteBuffer.allocate(16);
        final MemoryRegion remoteRegion = pair.b.register(remote, EnumSet.of(Access.REMOTE_WRITE));

        pair.a.write(pair.aToB, localRegion, 0, remoteRegion.iov(0, 16), 1);
        pair.runUntil(() -> pair.doneA.size() == 1);

        assertThat(pair.doneA.get(0).ok()).isTrue();
        assertThat(remote).isEqualTo(SimPair.pattern(16, 7));
        assertThat(pair.a.statistics().counter(EndpointCounter.EAGER_RTW_WRITES)).isEqualTo(1);
    }

    @Test
    void aRefusedRemoteAccessEndsInTheDeviceStatus() {
        final SimPair pair = new SimPair(seed.seed());
        pair.handshake();
        final MemoryRegion localRegion = pair.a.register(ByteBuffer.allocate(16), EnumSet.of(Access.LOCAL_WRITE));
        final MemoryRegion remoteRegion = pair.b.register(ByteBuffer.allocate(16), EnumSet.of(Access.REMOTE_WRITE));

        pair.a.read(pair.aToB, localRegion, 0, remoteRegion.iov(0, 16), 1);
        pair.runUntil(() -> pair.doneA.size() == 1);

        assertThat(pair.doneA.get(0).error()).isEqualTo(EfaErrorCode.REMOTE_ERROR_BAD_ADDRESS);
    }
}
