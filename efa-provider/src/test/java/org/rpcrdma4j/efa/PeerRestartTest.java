package org.rpcrdma4j.efa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.rpcrdma4j.efa.device.sim.FaultPlan;

/**
 * A peer process dies and a new one comes up on the same GID and QPN with a new connid
 * (efa-rdm-protocol-v4.md §4.4, "QP collision"): the survivor takes it as a new peer and talks to it,
 * while what the dead queue pair still sends is dropped as stale.
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

        pair.fabric.restart(pair.deviceB);
        final EfaEndpoint reborn = new EfaEndpoint(pair.deviceB, EndpointConfig.DEFAULT.withRandomSeed(seed.seed() + 1));
        final List<CompletionEntry> doneReborn = new ArrayList<>();
        final ByteBuffer hello = SimPair.pattern(100, 1);
        final ByteBuffer atA = ByteBuffer.allocate(100);
        pair.a.recv(EfaEndpoint.ADDR_UNSPEC, atA, 1);
        reborn.send(reborn.insert(pair.a.address()), hello, 2);
        run(pair, reborn, doneReborn, () -> pair.doneA.size() == 1 && doneReborn.size() == 1);

        final CompletionEntry received = pair.doneA.get(0);
        assertThat(received.ok()).isTrue();
        assertThat(atA).isEqualTo(hello);
        assertThat(received.source()).isNotEqualTo(pair.aToB);
        assertThat(pair.a.counter(EndpointCounter.PEER_RESTARTS)).isEqualTo(1);

        // A answers the new peer by the handle the receive reported.
        final ByteBuffer reply = SimPair.pattern(5000, 2);
        final ByteBuffer atReborn = ByteBuffer.allocate(5000);
        reborn.recv(EfaEndpoint.ADDR_UNSPEC, atReborn, 3);
        pair.a.send(received.source(), reply, 4);
        run(pair, reborn, doneReborn, () -> pair.doneA.size() == 2 && doneReborn.size() == 2);
        assertThat(doneReborn.get(1).ok()).isTrue();
        assertThat(atReborn).isEqualTo(reply);

        // The old B's late message carries its old connid in the connid header: stale now.
        final long staleBefore = pair.a.counter(EndpointCounter.STALE_CONNID_PACKETS);
        pair.a.recv(EfaEndpoint.ADDR_UNSPEC, ByteBuffer.allocate(16), 5);
        final long late = pair.now + LATE_NS;
        run(pair, reborn, doneReborn, () -> pair.now > late);
        assertThat(pair.a.counter(EndpointCounter.STALE_CONNID_PACKETS)).isEqualTo(staleBefore + 1);
        assertThat(pair.doneA).hasSize(2);
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
