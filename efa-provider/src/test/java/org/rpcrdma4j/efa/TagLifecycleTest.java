package org.rpcrdma4j.efa;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rpcrdma4j.efa.device.sim.SimDeviceConfig;

/**
 * Tags opened and closed at run time ({@link EfaEndpoint#openTag}, {@link EfaEndpoint#closeTag}), on
 * an endpoint that declared its tags and on one that takes every tag: what waits on a closed tag is
 * dropped, what comes later is dropped at once, and a tag opened again starts clean.
 */
class TagLifecycleTest {

    private static final long TAG = 0x5244_4D41_0001_0007L;
    private static final long OTHER = 0x5244_4D41_0000_0002L;
    /** Over the eager limit: a medium message of several packets. */
    private static final int MEDIUM = 20_000;

    @RegisterExtension
    final SeedWatcher seed = new SeedWatcher();

    private SimPair pair(boolean declared) {
        EndpointConfig receiver = declared ? EndpointConfig.DEFAULT.withTags(OTHER) : EndpointConfig.DEFAULT;
        SimPair pair = new SimPair(seed.seed(), SimDeviceConfig.DEFAULT, SimDeviceConfig.DEFAULT,
                EndpointConfig.DEFAULT, receiver);
        pair.b.openTag(TAG);
        return pair;
    }

    @ParameterizedTest(name = "declared tags: {0}")
    @ValueSource(booleans = {true, false})
    void aClosedTagDropsWhatWaitsOnItAndWhatComesLaterAndStartsCleanWhenOpenedAgain(boolean declared) {
        SimPair pair = pair(declared);
        pair.a.sendTagged(pair.aToB, SimPair.pattern(100, 1), TAG, 1);
        pair.a.sendTagged(pair.aToB, SimPair.pattern(MEDIUM, 2), TAG, 2);
        pair.a.sendTagged(pair.aToB, SimPair.pattern(100, 3), TAG, 3);
        pair.runUntil(() -> pair.doneA.size() == 3
                && pair.b.statistics().gauge(EndpointGauge.UNEXPECTED_MESSAGES) == 3);

        pair.b.closeTag(TAG);

        EndpointStatistics closed = pair.b.statistics();
        assertThat(closed.counter(EndpointCounter.CLOSED_TAG_MESSAGES)).isEqualTo(3);
        assertThat(closed.gauge(EndpointGauge.UNEXPECTED_MESSAGES)).isZero();
        assertThat(closed.gauge(EndpointGauge.UNEXPECTED_BYTES)).isZero();
        assertThat(closed.gauge(EndpointGauge.RX_ENTRIES)).isZero();

        pair.a.sendTagged(pair.aToB, SimPair.pattern(100, 4), TAG, 4);
        pair.a.sendTagged(pair.aToB, SimPair.pattern(MEDIUM, 5), TAG, 5);
        pair.runUntil(() -> pair.doneA.size() == 5
                && pair.b.statistics().counter(EndpointCounter.UNDECLARED_TAG_MESSAGES) == 2);
        assertThat(pair.b.statistics().gauge(EndpointGauge.UNEXPECTED_MESSAGES)).isZero();

        pair.b.openTag(TAG);
        ByteBuffer into = ByteBuffer.allocate(MEDIUM);
        pair.b.recvTagged(EfaEndpoint.ADDR_UNSPEC, into, TAG, 0, 10);
        pair.a.sendTagged(pair.aToB, SimPair.pattern(200, 6), TAG, 6);
        pair.runUntil(() -> pair.doneB.size() == 1);

        assertThat(pair.doneB.get(0).error()).isEqualTo(EfaErrorCode.SUCCESS);
        assertThat(pair.doneB.get(0).length()).isEqualTo(200);
        assertThat(into.limit(200)).isEqualTo(SimPair.pattern(200, 6));
        assertThat(pair.doneA).allSatisfy(done -> assertThat(done.error()).isEqualTo(EfaErrorCode.SUCCESS));
    }

    @ParameterizedTest(name = "declared tags: {0}")
    @ValueSource(booleans = {true, false})
    void closingATagCancelsTheReceivesPostedForItAloneAndOthersStillMatch(boolean declared) {
        SimPair pair = pair(declared);
        pair.b.recvTagged(EfaEndpoint.ADDR_UNSPEC, ByteBuffer.allocate(16), TAG, 0, 1);
        pair.b.recvTagged(EfaEndpoint.ADDR_UNSPEC, ByteBuffer.allocate(16), OTHER, 0, 2);
        pair.b.recvTagged(EfaEndpoint.ADDR_UNSPEC, ByteBuffer.allocate(16), TAG, 0xFFFF, 3);

        pair.b.closeTag(TAG);
        pair.runUntil(() -> pair.doneB.size() == 1);
        assertThat(pair.doneB.get(0).context()).isEqualTo(1);
        assertThat(pair.doneB.get(0).error()).isEqualTo(EfaErrorCode.CANCELED);

        pair.a.sendTagged(pair.aToB, ByteBuffer.wrap(new byte[] {7}), OTHER, 4);
        pair.runUntil(() -> pair.doneB.size() == 2);
        assertThat(pair.doneB.get(1).context()).isEqualTo(2);
        assertThat(pair.doneB.get(1).error()).isEqualTo(EfaErrorCode.SUCCESS);
        assertThat(List.of(pair.b.cancel(3), pair.b.cancel(1))).containsExactly(true, false);
    }
}
