package org.rpcrdma4j.efa;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.rpcrdma4j.efa.device.sim.FaultPlan;
import org.rpcrdma4j.efa.device.sim.SimDeviceConfig;

/**
 * {@link EfaEndpoint#idle()}: an endpoint that says it is idle, on a network with nothing in flight, has
 * nothing to do however much time passes, so a progress thread may sleep until it is woken; and one
 * with anything left to build, post or retry does not say so.
 */
class IdleTest {

    /** Virtual time skipped at each quiet moment: longer than any receiver-not-ready backoff. */
    private static final long QUIET_NS = 50_000_000;

    @RegisterExtension
    final SeedWatcher seed = new SeedWatcher();

    @Test
    void anIdleEndpointOnAQuietNetworkHasNothingToDoAsTimePasses() {
        SimDeviceConfig faulty = SimDeviceConfig.DEFAULT.withFaults(
                FaultPlan.NONE.withDelay(0, 3_000).withReorder(0.2, 4).withRnr(0.3)).withSendQueueDepth(3);
        SimPair pair = new SimPair(seed.seed(), faulty, faulty, EndpointConfig.DEFAULT, EndpointConfig.DEFAULT);
        assertThat(pair.a.idle() && pair.b.idle()).as("nothing posted yet").isTrue();
        int[] sizes = {1, 9000, 70_000, 3 << 20};
        int[] quiet = {0};
        for (int i = 0; i < sizes.length; i++) {
            assertThat(pair.a.send(pair.aToB, SimPair.pattern(sizes[i], i), i)).isTrue();
        }
        assertThat(pair.fabric.inFlight() > 0 || !pair.a.idle()).as("sends on the wire or to build").isTrue();
        // No receive is posted yet: the messages wait at B as unexpected ones, and the long one for a CTS.
        pair.runUntil(() -> quietNothingHappens(pair, quiet));
        List<ByteBuffer> into = new ArrayList<>();
        for (int i = 0; i < sizes.length; i++) {
            into.add(ByteBuffer.allocate(sizes[i]));
            pair.b.recv(EfaEndpoint.ADDR_UNSPEC, into.get(i), i);
        }
        int[] quietBefore = {quiet[0]};
        pair.runUntil(() -> {
            boolean wasQuiet = quietNothingHappens(pair, quiet);
            return wasQuiet && pair.doneA.size() == sizes.length && pair.doneB.size() == sizes.length;
        });
        assertThat(quiet[0]).as("quiet moments checked before and after the receives").isGreaterThan(quietBefore[0])
                .isGreaterThan(1);
        for (CompletionEntry done : pair.doneB) {
            assertThat(done.ok()).isTrue();
            assertThat(into.get((int) done.context()).rewind())
                    .isEqualTo(SimPair.pattern(sizes[(int) done.context()], done.context()));
        }
        assertThat(pair.a.statistics().counter(EndpointCounter.RNR_BACKOFFS)).as("backoffs were waited for")
                .isPositive();
    }

    /**
     * When both endpoints are idle and nothing is in flight, skips far ahead in time and checks that
     * progress then does nothing; a completion not yet polled would be work.
     *
     * @return whether it was such a quiet moment
     */
    private static boolean quietNothingHappens(SimPair pair, int[] quiet) {
        pair.a.poll(pair.doneA::add, Integer.MAX_VALUE);
        pair.b.poll(pair.doneB::add, Integer.MAX_VALUE);
        if (pair.fabric.inFlight() > 0 || !pair.a.idle() || !pair.b.idle()) {
            return false;
        }
        quiet[0]++;
        pair.now += QUIET_NS;
        assertThat(pair.fabric.progress(pair.now)).isZero();
        assertThat(pair.a.progress(pair.now)).as("A's progress after an idle moment").isZero();
        assertThat(pair.b.progress(pair.now)).as("B's progress after an idle moment").isZero();
        return true;
    }
}
