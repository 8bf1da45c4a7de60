package org.rpcrdma4j.efa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.sim.FaultPlan;
import org.rpcrdma4j.efa.device.sim.SimDeviceConfig;

/**
 * A peer process dies and a new one comes up on the same GID and QPN with a new connid
 * (EFA RDM protocol v4 §4.4, "QP collision"): the survivor takes it as a new peer and talks to it,
 * whether the new one speaks first or the survivor inserts its address, while what the dead queue
 * pair still sends is dropped as stale and what was in progress with it ends with PEER_RESTARTED.
 */
class PeerRestartTest {

    /** How long the old B's last message takes: longer than everything the new B does. */
    private static final long LATE_NS = 1_000_000_000L;

    @RegisterExtension
    final SeedWatcher seed = new SeedWatcher();

    @Test
    void newQueuePairOnTheSameQpnIsANewPeerAndTheOldOnesPacketsAreStale() {
        final SimPair pair = new SimPair(seed.seed());
        final long oldBToA = pair.handshake();
        // A last message of the old B is still on the wire when B restarts; it arrives late.
        pair.fabric.setLinkFaults(pair.deviceB, pair.deviceA, FaultPlan.NONE.withDelay(LATE_NS, LATE_NS));
        pair.b.send(oldBToA, ByteBuffer.allocate(8), 0);
        pair.fabric.setLinkFaults(pair.deviceB, pair.deviceA, FaultPlan.NONE);
        // What A has in progress with the old B: a receive only it could satisfy, and a long-CTS
        // send the old B will never grant a window for.
        pair.a.recv(pair.aToB, ByteBuffer.allocate(8), 10);
        pair.a.send(pair.aToB, SimPair.pattern(100_000, 3), 11);
        pair.step();

        pair.fabric.restart(pair.deviceB);
        final EfaEndpoint reborn = new EfaEndpoint(pair.deviceB,
                EndpointConfig.DEFAULT.withRandomSeed(seed.seed() + 1));
        final List<CompletionEntry> doneReborn = new ArrayList<>();
        final ByteBuffer hello = SimPair.pattern(100, 1);
        final ByteBuffer atA = ByteBuffer.allocate(100);
        pair.a.recv(EfaEndpoint.ADDR_UNSPEC, atA, 1);
        reborn.send(reborn.insert(pair.a.address()), hello, 2);
        run(pair, reborn, doneReborn, () -> pair.doneA.size() == 3 && doneReborn.size() == 1);

        final List<CompletionEntry> ended = pair.doneA.stream().filter(entry -> entry.context() >= 10).toList();
        assertThat(ended).extracting(CompletionEntry::context).containsExactlyInAnyOrder(10L, 11L);
        assertThat(ended).extracting(CompletionEntry::error).containsOnly(EfaErrorCode.PEER_RESTARTED);
        pair.doneA.removeAll(ended);
        final CompletionEntry received = pair.doneA.get(0);
        assertThat(received.ok()).isTrue();
        assertThat(atA).isEqualTo(hello);
        assertThat(received.source()).isNotEqualTo(pair.aToB);
        assertThat(pair.a.statistics().counter(EndpointCounter.PEER_RESTARTS)).isEqualTo(1);

        // A answers the new peer by the handle the receive reported.
        final ByteBuffer reply = SimPair.pattern(5000, 2);
        final ByteBuffer atReborn = ByteBuffer.allocate(5000);
        reborn.recv(EfaEndpoint.ADDR_UNSPEC, atReborn, 3);
        pair.a.send(received.source(), reply, 4);
        run(pair, reborn, doneReborn, () -> pair.doneA.size() == 2 && doneReborn.size() == 2);
        assertThat(doneReborn.get(1).ok()).isTrue();
        assertThat(atReborn).isEqualTo(reply);

        // The old B's late message carries its old connid in the connid header: stale now.
        final long staleBefore = pair.a.statistics().counter(EndpointCounter.STALE_CONNID_PACKETS);
        pair.a.recv(EfaEndpoint.ADDR_UNSPEC, ByteBuffer.allocate(16), 5);
        final long late = pair.now + LATE_NS;
        run(pair, reborn, doneReborn, () -> pair.now > late);
        assertThat(pair.a.statistics().counter(EndpointCounter.STALE_CONNID_PACKETS)).isEqualTo(staleBefore + 1);
        assertThat(pair.doneA).hasSize(2);
        // The old handle stays valid, and dead: a send to it ends at once.
        pair.a.send(pair.aToB, ByteBuffer.allocate(1), 12);
        pair.a.poll(pair.doneA::add, Integer.MAX_VALUE);
        assertThat(pair.doneA.get(2).error()).isEqualTo(EfaErrorCode.PEER_RESTARTED);
    }

    @Test
    void theSurvivorInsertsTheRestartedPeersNewAddressAndReachesIt() {
        final SimPair pair = new SimPair(seed.seed());
        pair.handshake();
        pair.a.send(pair.aToB, SimPair.pattern(100_000, 3), 1);  // B never takes it: waits for a CTS
        pair.runUntil(() -> pair.b.statistics().gauge(EndpointGauge.UNEXPECTED_MESSAGES) == 1);

        pair.fabric.restart(pair.deviceB);
        final EfaEndpoint reborn = new EfaEndpoint(pair.deviceB,
                EndpointConfig.DEFAULT.withRandomSeed(seed.seed() + 1));
        final List<CompletionEntry> doneReborn = new ArrayList<>();
        // This used to throw "is inserted with connid": the same GID and QPN with a new connid.
        final long aToReborn = pair.a.insert(reborn.address());
        assertThat(aToReborn).isNotEqualTo(pair.aToB);
        assertThat(pair.a.statistics().counter(EndpointCounter.PEER_RESTARTS)).isEqualTo(1);
        assertThat(pair.a.insert(reborn.address())).isEqualTo(aToReborn);
        pair.a.poll(pair.doneA::add, Integer.MAX_VALUE);
        assertThat(pair.doneA).singleElement().satisfies(entry -> {
            assertThat(entry.context()).isEqualTo(1);
            assertThat(entry.error()).isEqualTo(EfaErrorCode.PEER_RESTARTED);
        });

        final ByteBuffer message = SimPair.pattern(20_000, 4);
        final ByteBuffer atReborn = ByteBuffer.allocate(20_000);
        reborn.recv(EfaEndpoint.ADDR_UNSPEC, atReborn, 2);
        pair.a.send(aToReborn, message, 3);
        run(pair, reborn, doneReborn, () -> pair.doneA.size() == 2 && doneReborn.size() == 1);
        assertThat(pair.doneA.get(1).ok()).isTrue();
        assertThat(doneReborn.get(0).ok()).isTrue();
        assertThat(atReborn).isEqualTo(message);

        // And back: the reborn B answers A by the handle its receive reported.
        final ByteBuffer atA = ByteBuffer.allocate(8);
        pair.a.recv(aToReborn, atA, 4);
        reborn.send(doneReborn.get(0).source(), SimPair.pattern(8, 5), 5);
        run(pair, reborn, doneReborn, () -> pair.doneA.size() == 3 && doneReborn.size() == 2);
        assertThat(pair.doneA.get(2).ok()).isTrue();
        assertThat(pair.doneA.get(2).source()).isEqualTo(aToReborn);
        assertThat(atA).isEqualTo(SimPair.pattern(8, 5));
        // Nothing of the old B is left at A once its handle is removed.
        pair.a.remove(pair.aToB);
        assertThat(pair.a.statistics().gauge(EndpointGauge.PEERS)).isEqualTo(1);
        assertThat(pair.a.statistics().gauge(EndpointGauge.TX_ENTRIES)).isZero();
        run(pair, reborn, doneReborn, () -> pair.fabric.inFlight() == 0
                && pair.a.statistics().gauge(EndpointGauge.PACKETS_IN_USE) == 0);
    }

    /**
     * Emulated RMA in progress with a peer that restarts (devices without RDMA): a long-CTS write, a long-CTS read
     * and a fetch atomic towards the old B end with PEER_RESTARTED once A learns of the new one; the same
     * operations towards the new B then land, byte for byte.
     */
    @Test
    void emulatedRmaInProgressWithARestartedPeerEndsAndTheNewPeerServesIt() {
        final SimDeviceConfig noRdma = SimDeviceConfig.DEFAULT.withCapabilities(Set.of());
        final SimPair pair = new SimPair(seed.seed(), noRdma, noRdma, EndpointConfig.DEFAULT, EndpointConfig.DEFAULT);
        pair.handshake();
        final int size = 1 << 20;
        final Set<Access> remote = EnumSet.of(Access.REMOTE_READ, Access.REMOTE_WRITE);
        final MemoryRegion atOldB = pair.b.register(ByteBuffer.allocate(size), remote);
        final MemoryRegion source = pair.a.register(SimPair.pattern(size, 7), Set.of());
        final ByteBuffer intoBytes = ByteBuffer.allocate(size);
        final MemoryRegion into = pair.a.register(intoBytes, EnumSet.of(Access.LOCAL_WRITE));
        final ByteBuffer one = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, 1);
        pair.a.write(pair.aToB, source, 0, atOldB.iov(0, size), 1);
        pair.a.read(pair.aToB, into, 0, atOldB.iov(0, size), 2);
        pair.a.fetchAtomic(pair.aToB, one, ByteBuffer.allocate(8), atOldB.iov(0, 8), AtomicDatatype.UINT64,
                AtomicOp.SUM, 3);
        pair.step();

        pair.fabric.restart(pair.deviceB);
        final EfaEndpoint reborn = new EfaEndpoint(pair.deviceB,
                EndpointConfig.DEFAULT.withRandomSeed(seed.seed() + 1));
        final List<CompletionEntry> doneReborn = new ArrayList<>();
        final long aToReborn = pair.a.insert(reborn.address());
        run(pair, reborn, doneReborn, () -> pair.doneA.size() == 3);
        assertThat(pair.doneA).extracting(CompletionEntry::context).containsExactlyInAnyOrder(1L, 2L, 3L);
        assertThat(pair.doneA).extracting(CompletionEntry::error).containsOnly(EfaErrorCode.PEER_RESTARTED);
        pair.doneA.clear();

        final ByteBuffer atNewB = SimPair.pattern(size, 9);
        final MemoryRegion region = reborn.register(atNewB, remote);
        final ByteBuffer fetched = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
        atNewB.order(ByteOrder.LITTLE_ENDIAN);
        pair.a.read(aToReborn, into, 0, region.iov(0, size), 4);
        run(pair, reborn, doneReborn, () -> pair.doneA.size() == 1);
        pair.a.write(aToReborn, source, 0, region.iov(0, size), 5);
        run(pair, reborn, doneReborn, () -> pair.doneA.size() == 2);
        final long written = atNewB.getLong(size - 8);
        pair.a.fetchAtomic(aToReborn, one, fetched, region.iov(size - 8, 8), AtomicDatatype.UINT64, AtomicOp.SUM, 6);
        run(pair, reborn, doneReborn, () -> pair.doneA.size() == 3);

        assertThat(pair.doneA).extracting(CompletionEntry::error).containsOnly(EfaErrorCode.SUCCESS);
        assertThat(intoBytes).isEqualTo(SimPair.pattern(size, 9));
        assertThat(fetched.getLong(0)).isEqualTo(written);
        assertThat(atNewB.getLong(size - 8)).isEqualTo(written + 1);
        assertThat(atNewB.slice(0, size - 8)).isEqualTo(SimPair.pattern(size, 7).slice(0, size - 8));
        assertThat(doneReborn).as("the target of emulated RMA reports nothing").isEmpty();
    }

    /** Steps fabric, A and the reborn B (the dead B is left alone). */
    private static void run(SimPair pair, EfaEndpoint reborn, List<CompletionEntry> doneReborn, BooleanSupplier done) {
        for (int i = 0; i < 2_000_000; i++) {
            if (done.getAsBoolean()) {
                return;
            }
            pair.now += SimPair.STEP_NS;
            pair.fabric.progress(pair.now);
            pair.a.progress(pair.now);
            reborn.progress(pair.now);
            pair.a.poll(pair.doneA::add, Integer.MAX_VALUE);
            reborn.poll(doneReborn::add, Integer.MAX_VALUE);
        }
        fail("no progress: A completed " + pair.doneA + ", reborn B " + doneReborn);
    }
}
