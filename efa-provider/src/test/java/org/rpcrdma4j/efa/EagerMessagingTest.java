package org.rpcrdma4j.efa;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.rpcrdma4j.efa.CompletionEntry.Kind;

/** Address vector, handshake, eager send/recv, tags, CQ data, unexpected queue. */
class EagerMessagingTest {

    @RegisterExtension
    final SeedWatcher seed = new SeedWatcher();

    private SimPair pair;

    @BeforeEach
    void setUp() {
        pair = new SimPair(seed.seed());
    }

    @Test
    void firstMessageIsDeliveredAndTheReceiverLearnsTheSenderFromItsRawAddress() {
        final ByteBuffer into = ByteBuffer.allocate(64);
        pair.b.recv(EfaEndpoint.ADDR_UNSPEC, into, 11);
        assertThat(pair.a.send(pair.aToB, ByteBuffer.wrap("hello".getBytes()), 22)).isTrue();

        pair.runUntil(() -> pair.doneA.size() == 1 && pair.doneB.size() == 1);

        assertThat(pair.doneA.get(0)).isEqualTo(new CompletionEntry(Kind.SEND, 22, 5, 0, 0, false, pair.aToB,
                EfaErrorCode.SUCCESS));
        final CompletionEntry received = pair.doneB.get(0);
        assertThat(received.kind()).isEqualTo(Kind.RECV);
        assertThat(received.context()).isEqualTo(11);
        assertThat(received.length()).isEqualTo(5);
        assertThat(new String(into.array(), 0, 5)).isEqualTo("hello");
        // B inserted A implicitly: the source handle reaches A.
        assertThat(pair.b.insert(pair.a.address())).isEqualTo(received.source());
    }

    @Test
    void bothSidesExchangeHandshakesAndTheReplyNeedsNoInsert() {
        final long bToA = pair.handshake();

        assertThat(pair.a.statistics().counter(EndpointCounter.HANDSHAKES_RECEIVED)).isEqualTo(1);
        assertThat(pair.b.statistics().counter(EndpointCounter.HANDSHAKES_RECEIVED)).isEqualTo(1);
        assertThat(pair.a.statistics().counter(EndpointCounter.HANDSHAKES_SENT)).isEqualTo(1);
        assertThat(pair.b.statistics().counter(EndpointCounter.HANDSHAKES_SENT)).isEqualTo(1);
        assertThat(bToA).isNotEqualTo(EfaEndpoint.ADDR_UNSPEC);
    }

    @Test
    void messageBeforeItsReceiveWaitsInTheUnexpectedQueue() {
        pair.a.send(pair.aToB, SimPair.pattern(100, 1), 1);
        pair.runUntil(() -> pair.doneA.size() == 1);
        assertThat(pair.b.statistics().gauge(EndpointGauge.UNEXPECTED_MESSAGES)).isEqualTo(1);

        final ByteBuffer into = ByteBuffer.allocate(100);
        pair.b.recv(EfaEndpoint.ADDR_UNSPEC, into, 2);
        pair.runUntil(() -> pair.doneB.size() == 1);

        assertThat(pair.doneB.get(0).length()).isEqualTo(100);
        assertThat(into.rewind()).isEqualTo(SimPair.pattern(100, 1));
        assertThat(pair.b.statistics().gauge(EndpointGauge.UNEXPECTED_MESSAGES)).isZero();
        assertThat(pair.b.statistics().counter(EndpointCounter.UNEXPECTED_MESSAGES)).isEqualTo(1);
    }

    @Test
    void taggedReceiveMatchesTheTagOutsideItsIgnoreMaskAndUntaggedTrafficStaysApart() {
        final ByteBuffer tagged = ByteBuffer.allocate(8);
        final ByteBuffer untagged = ByteBuffer.allocate(8);
        pair.b.recvTagged(EfaEndpoint.ADDR_UNSPEC, tagged, 0xAB00, 0x00FF, 1);
        pair.b.recv(EfaEndpoint.ADDR_UNSPEC, untagged, 2);
        pair.a.sendTagged(pair.aToB, ByteBuffer.wrap(new byte[] {1}), 0xCD00, 3);  // no match
        pair.a.send(pair.aToB, ByteBuffer.wrap(new byte[] {2}), 4);
        pair.a.sendTagged(pair.aToB, ByteBuffer.wrap(new byte[] {3}), 0xAB42, 5);

        pair.runUntil(() -> pair.doneA.size() == 3 && pair.doneB.size() == 2);

        assertThat(pair.doneB).extracting(CompletionEntry::context).containsExactly(2L, 1L);
        assertThat(pair.doneB.get(1).kind()).isEqualTo(Kind.TAGGED_RECV);
        assertThat(pair.doneB.get(1).tag()).isEqualTo(0xAB42);
        assertThat(tagged.get(0)).isEqualTo((byte) 3);
        assertThat(untagged.get(0)).isEqualTo((byte) 2);
        assertThat(pair.b.statistics().gauge(EndpointGauge.UNEXPECTED_MESSAGES)).isEqualTo(1);

        final ByteBuffer late = ByteBuffer.allocate(8);
        pair.b.recvTagged(EfaEndpoint.ADDR_UNSPEC, late, 0xCD00, 0, 6);
        pair.runUntil(() -> pair.doneB.size() == 3);
        assertThat(late.get(0)).isEqualTo((byte) 1);
    }

    @Test
    void directedReceiveTakesOnlyItsSource() {
        final long bToA = pair.handshake();
        final ByteBuffer into = ByteBuffer.allocate(8);
        pair.b.recv(bToA, into, 1);
        pair.a.send(pair.aToB, ByteBuffer.wrap(new byte[] {9}), 2);
        pair.runUntil(() -> pair.doneB.size() == 1);
        assertThat(pair.doneB.get(0).source()).isEqualTo(bToA);
        assertThat(into.get(0)).isEqualTo((byte) 9);
    }

    @Test
    void cqDataReachesTheReceiverCompletion() {
        pair.b.recv(EfaEndpoint.ADDR_UNSPEC, ByteBuffer.allocate(8), 1);
        pair.b.recvTagged(EfaEndpoint.ADDR_UNSPEC, ByteBuffer.allocate(8), 5, 0, 2);
        pair.a.sendData(pair.aToB, ByteBuffer.wrap(new byte[] {1}), 0xDEAD_BEEF_0000_0001L, 3);
        pair.a.sendTaggedData(pair.aToB, ByteBuffer.wrap(new byte[] {1}), 5, 42, 4);
        pair.runUntil(() -> pair.doneB.size() == 2);

        assertThat(pair.doneB.get(0).hasCqData()).isTrue();
        assertThat(pair.doneB.get(0).cqData()).isEqualTo(0xDEAD_BEEF_0000_0001L);
        assertThat(pair.doneB.get(1).cqData()).isEqualTo(42);
        assertThat(pair.doneB.get(1).tag()).isEqualTo(5);
    }

    @Test
    void longerMessageThanTheBufferIsTruncatedWithAnErrorCompletion() {
        final ByteBuffer into = ByteBuffer.allocate(4);
        pair.b.recv(EfaEndpoint.ADDR_UNSPEC, into, 1);
        pair.a.send(pair.aToB, SimPair.pattern(10, 3), 2);
        pair.runUntil(() -> pair.doneB.size() == 1);

        assertThat(pair.doneB.get(0).error()).isEqualTo(EfaErrorCode.MESSAGE_TRUNCATED);
        assertThat(pair.doneB.get(0).length()).isEqualTo(4);
        assertThat(into.rewind()).isEqualTo(SimPair.pattern(10, 3).limit(4));
    }

    @Test
    void sendAfterSendOrderHoldsUnderReordering() {
        final SimPair reordering = new SimPair(seed.seed(),
                org.rpcrdma4j.efa.device.sim.SimDeviceConfig.DEFAULT.withFaults(
                        org.rpcrdma4j.efa.device.sim.FaultPlan.NONE.withDelay(0, 20_000).withReorder(0.5, 8)),
                org.rpcrdma4j.efa.device.sim.SimDeviceConfig.DEFAULT, EndpointConfig.DEFAULT, EndpointConfig.DEFAULT);
        assertMessagesArriveInOrder(reordering, 300);
        assertThat(reordering.b.statistics().counter(EndpointCounter.REORDERED_PACKETS)).isPositive();
    }

    @Test
    void msgIdWrapsAtTwoToTheThirtyTwo() {
        final EndpointConfig nearWrap = EndpointConfig.DEFAULT.withInitialMsgId(-5);  // 0xFFFFFFFB
        final SimPair wrapping = new SimPair(seed.seed(),
                org.rpcrdma4j.efa.device.sim.SimDeviceConfig.DEFAULT.withFaults(
                        org.rpcrdma4j.efa.device.sim.FaultPlan.NONE.withDelay(0, 20_000).withReorder(0.5, 8)),
                org.rpcrdma4j.efa.device.sim.SimDeviceConfig.DEFAULT, nearWrap, nearWrap);
        assertMessagesArriveInOrder(wrapping, 40);
        assertThat(wrapping.b.statistics().counter(EndpointCounter.REORDER_OVERFLOW_PACKETS)).isZero();
        assertThat(wrapping.b.statistics().counter(EndpointCounter.ORPHAN_PACKETS)).isZero();
    }

    @Test
    void peersThatAskForAConstantHeaderLengthOrNoConnidStillGetEveryMessage() {
        final SimPair constant = new SimPair(seed.seed(), org.rpcrdma4j.efa.device.sim.SimDeviceConfig.DEFAULT,
                org.rpcrdma4j.efa.device.sim.SimDeviceConfig.DEFAULT, EndpointConfig.DEFAULT,
                EndpointConfig.DEFAULT.withRequestConstantHeaderLength(true));
        constant.handshake();
        assertMessagesArriveInOrder(constant, 10);

        final EndpointConfig noConnid = EndpointConfig.DEFAULT.withRequestConnidHeader(false);
        final SimPair plain = new SimPair(seed.seed(), org.rpcrdma4j.efa.device.sim.SimDeviceConfig.DEFAULT,
                org.rpcrdma4j.efa.device.sim.SimDeviceConfig.DEFAULT, noConnid, noConnid);
        plain.handshake();
        assertMessagesArriveInOrder(plain, 10);
    }

    /** Sends {@code count} messages of mixed sizes and protocols; receive i must get message i. */
    static void assertMessagesArriveInOrder(SimPair pair, int count) {
        final int[] sizes = {1, 100, 9000, 20_000, 70_000};
        final List<ByteBuffer> into = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            final int size = sizes[i % sizes.length];
            into.add(ByteBuffer.allocate(size));
            pair.b.recv(EfaEndpoint.ADDR_UNSPEC, into.get(i), i);
        }
        int sent = 0;
        while (sent < count) {
            final int size = sizes[sent % sizes.length];
            if (pair.a.send(pair.aToB, SimPair.pattern(size, sent), sent)) {
                sent++;
            } else {
                pair.step();
            }
        }
        pair.runUntil(() -> pair.doneB.size() == count && pair.doneA.size() == count);
        for (int i = 0; i < count; i++) {
            final CompletionEntry done = pair.doneB.get(i);
            assertThat(done.ok()).isTrue();
            assertThat(into.get((int) done.context()).rewind()).as("message %d", done.context())
                    .isEqualTo(SimPair.pattern(sizes[(int) done.context() % sizes.length], done.context()));
        }
    }
}
