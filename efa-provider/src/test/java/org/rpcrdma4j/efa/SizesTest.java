package org.rpcrdma4j.efa;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.stream.IntStream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.rpcrdma4j.efa.device.sim.SimDeviceConfig;
import org.rpcrdma4j.efa.wire.EagerRtmFlyweight;
import org.rpcrdma4j.efa.wire.ReqOptionalHeadersFlyweight;

/**
 * Every subprotocol at its edges: sizes 0 and 1, the eager and medium boundaries
 * ±1 and 64 MiB, untagged and tagged, data verified byte for byte, on a plain fabric and under
 * reordering with small queues.
 */
class SizesTest {

    /** After the handshake an EAGER_MSGRTM to a peer that asked for the connid header has 8 + 4 header bytes. */
    static final int EAGER_MAX = SimDeviceConfig.DEFAULT_MTU - EagerRtmFlyweight.MSGRTM_HEADER_LENGTH
            - ReqOptionalHeadersFlyweight.CONNID_LENGTH;
    static final int MEDIUM_MAX = EndpointConfig.DEFAULT_MEDIUM_MAX_SIZE;
    static final int SIXTY_FOUR_MIB = 64 << 20;

    @RegisterExtension
    final SeedWatcher seed = new SeedWatcher();

    static IntStream sizes() {
        return IntStream.of(0, 1, EAGER_MAX - 1, EAGER_MAX, EAGER_MAX + 1, MEDIUM_MAX - 1, MEDIUM_MAX,
                MEDIUM_MAX + 1, SIXTY_FOUR_MIB);
    }

    @ParameterizedTest
    @MethodSource("sizes")
    void messageArrivesIntact(int size) {
        transfer(new SimPair(seed.seed()), size, false);
    }

    @ParameterizedTest
    @MethodSource("sizes")
    void taggedMessageArrivesIntactUnderReorderingAndSmallQueues(int size) {
        final SimDeviceConfig tight = SimDeviceConfig.DEFAULT.withSendQueueDepth(4).withRecvQueueDepth(16)
                .withFaults(org.rpcrdma4j.efa.device.sim.FaultPlan.NONE.withDelay(0, 5_000).withReorder(0.3, 4));
        transfer(new SimPair(seed.seed(), tight, tight, EndpointConfig.DEFAULT, EndpointConfig.DEFAULT), size, true);
    }

    /** Sends one message of {@code size} bytes A to B after the handshakes and checks every byte. */
    static void transfer(SimPair pair, int size, boolean tagged) {
        pair.handshake();
        final ByteBuffer into = ByteBuffer.allocate(size);
        final ByteBuffer data = SimPair.pattern(size, size);
        if (tagged) {
            pair.b.recvTagged(EfaEndpoint.ADDR_UNSPEC, into, 77, 0, 1);
            assertThat(pair.a.sendTagged(pair.aToB, data, 77, 2)).isTrue();
        } else {
            pair.b.recv(EfaEndpoint.ADDR_UNSPEC, into, 1);
            assertThat(pair.a.send(pair.aToB, data, 2)).isTrue();
        }
        pair.runUntil(() -> pair.doneA.size() == 1 && pair.doneB.size() == 1);

        assertThat(pair.doneA.get(0).ok()).isTrue();
        assertThat(pair.doneB.get(0).ok()).isTrue();
        assertThat(pair.doneB.get(0).length()).isEqualTo(size);
        assertThat(into.rewind().equals(SimPair.pattern(size, size))).as("bytes of a %d-byte message", size).isTrue();
    }
}
