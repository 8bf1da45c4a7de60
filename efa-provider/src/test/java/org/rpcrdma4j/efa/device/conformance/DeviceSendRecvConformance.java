package org.rpcrdma4j.efa.device.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.efa.device.AddressHandle;
import org.rpcrdma4j.efa.device.Completion;
import org.rpcrdma4j.efa.device.CompletionStatus;
import org.rpcrdma4j.efa.device.Device;
import org.rpcrdma4j.efa.device.Opcode;

/**
 * Sends and receives ({@link Device#postSend}, {@link Device#postRecv}, {@link Device#pollCompletions}):
 * a packet of up to the MTU arrives once, intact, in the buffer posted first, and both sides
 * complete with the right wr_id, opcode, length and source; the device touches nothing outside
 * the bytes it was given and moves no position or limit; a packet over the MTU fails with
 * {@code LOCAL_ERROR_BAD_LENGTH}, one over the receive buffer with {@code REMOTE_ERROR_BAD_LENGTH},
 * and one with no receive posted with {@code REMOTE_ERROR_RNR}, none of them delivered; a full
 * queue refuses posts until a completion is polled; many packets in flight, reordered or not,
 * arrive once each (SRD, EFA RDM protocol v4 §1.1).
 *
 * <p>The SPI has no immediate (CQ) data, so nothing here checks it.
 */
public abstract class DeviceSendRecvConformance extends DeviceConformance {

    /** The most packets the many-packets checks have in flight at once. */
    private static final int MANY = 128;
    private static final ByteBuffer MARKER_TEXT = pattern(0x4D, 8);

    private Device a;
    private Device b;
    private AddressHandle aToB;

    @BeforeEach
    final void twoDevices() {
        a = newDevice();
        b = newDevice();
        aToB = a.createAddressHandle(b.address().gid());
    }

    private boolean send(ByteBuffer packet, long wrId) {
        return a.postSend(aToB, b.address().qpn(), b.address().qkey(), packet, wrId);
    }

    private Completion sent(long wrId, CompletionStatus status, int length) {
        return Completion.ofInitiated(wrId, Opcode.SEND, status, length);
    }

    private Completion receivedFromA(long wrId, int length) {
        return Completion.ofReceived(wrId, length, null, a.address().gid(), a.address().qpn());
    }

    /** Sends the 8-byte marker from a to b and waits for its send completion, which must be OK. */
    private void sendMarker(long wrId) {
        assertThat(send(MARKER_TEXT.duplicate(), wrId)).isTrue();
        assertThat(awaitOne(a)).isEqualTo(sent(wrId, CompletionStatus.OK, 8));
    }

    @Test
    void packetArrivesIntactInThePostedBufferAndBothSidesComplete() {
        final Guarded packet = new Guarded(1, 100);
        final Guarded buffer = new Guarded(2, 256);
        final ByteBuffer packetView = packet.view();
        final ByteBuffer bufferView = buffer.view();
        assertThat(b.postRecv(bufferView, 100)).isTrue();
        assertThat(send(packetView, 1)).isTrue();

        assertThat(awaitOne(a)).isEqualTo(sent(1, CompletionStatus.OK, 100));
        assertThat(awaitOne(b)).isEqualTo(receivedFromA(100, 100));
        assertThat(buffer.bytes(0, 100)).isEqualTo(patternBytes(1, 100));
        assertThat(buffer.bytes(100, 156)).as("the rest of the receive buffer")
                .isEqualTo(bytes(pattern(2, 256), 100, 156));
        buffer.assertGuardsIntact();
        assertThat(packet.bytes()).as("the packet sent").isEqualTo(patternBytes(1, 100));
        packet.assertGuardsIntact();
        assertThat(packetView.position()).as("position of the packet").isEqualTo(GUARD);
        assertThat(packetView.limit()).as("limit of the packet").isEqualTo(GUARD + 100);
        assertThat(bufferView.position()).as("position of the receive buffer").isEqualTo(GUARD);
        assertThat(bufferView.limit()).as("limit of the receive buffer").isEqualTo(GUARD + 256);
    }

    @Test
    void packetOfExactlyTheMtuArrivesIntact() {
        final int mtu = a.attributes().mtu();
        final Guarded buffer = new Guarded(2, mtu);
        b.postRecv(buffer.view(), 100);
        send(pattern(1, mtu), 1);

        assertThat(awaitOne(a)).isEqualTo(sent(1, CompletionStatus.OK, mtu));
        assertThat(awaitOne(b)).isEqualTo(receivedFromA(100, mtu));
        assertThat(buffer.bytes()).isEqualTo(patternBytes(1, mtu));
        buffer.assertGuardsIntact();
    }

    @Test
    void emptyPacketArrivesWithLengthZero() {
        final Guarded buffer = new Guarded(2, 16);
        b.postRecv(buffer.view(), 100);
        send(ByteBuffer.allocateDirect(0), 1);

        assertThat(awaitOne(a)).isEqualTo(sent(1, CompletionStatus.OK, 0));
        assertThat(awaitOne(b)).isEqualTo(receivedFromA(100, 0));
        assertThat(buffer.bytes()).isEqualTo(patternBytes(2, 16));
        buffer.assertGuardsIntact();
    }

    @Test
    void packetOverTheMtuFailsWithBadLengthAndNothingArrives() {
        final int mtu = a.attributes().mtu();
        final ByteBuffer buffer = ByteBuffer.allocateDirect(2 * mtu + 8);
        b.postRecv(buffer, 100);

        assertThat(send(pattern(1, mtu + 1), 1)).isTrue();
        assertThat(awaitOne(a)).isEqualTo(sent(1, CompletionStatus.LOCAL_ERROR_BAD_LENGTH, 0));

        sendMarker(2);
        assertThat(awaitOne(b)).as("the marker, in the one buffer posted").isEqualTo(receivedFromA(100, 8));
        assertThat(bytes(buffer, 0, 8)).isEqualTo(bytes(MARKER_TEXT, 0, 8));
    }

    @Test
    void packetLongerThanTheReceiveBufferFailsAtTheSenderAndTouchesNothingOutsideTheBuffer() {
        final Guarded shortBuffer = new Guarded(2, 16);
        b.postRecv(shortBuffer.view(), 100);

        send(pattern(1, 64), 1);
        assertThat(awaitOne(a)).isEqualTo(sent(1, CompletionStatus.REMOTE_ERROR_BAD_LENGTH, 0));
        shortBuffer.assertGuardsIntact();

        // What the receiver sees of it the SPI leaves open (an error completion of that buffer,
        // or none and the buffer stays posted), but never a successful receive of it.
        final ByteBuffer second = ByteBuffer.allocateDirect(64);
        b.postRecv(second, 101);
        sendMarker(2);
        Completion received;
        do {
            received = awaitOne(b);
            assertThat(received.opcode()).isEqualTo(Opcode.RECV);
            if (received.status() != CompletionStatus.OK) {
                assertThat(received.wrId()).as("a failed receive names the short buffer").isEqualTo(100);
                assertThat(received.byteLength()).isZero();
            }
        } while (received.status() != CompletionStatus.OK);
        assertThat(received.byteLength()).as("the marker, not the long packet").isEqualTo(8);
        final byte[] marker = received.wrId() == 100 ? shortBuffer.bytes(0, 8) : bytes(second, 0, 8);
        assertThat(marker).isEqualTo(bytes(MARKER_TEXT, 0, 8));
        shortBuffer.assertGuardsIntact();
    }

    @Test
    void packetWithNoReceivePostedFailsWithReceiverNotReadyAndNothingArrives() {
        send(pattern(1, 8), 1);
        assertThat(awaitOne(a)).isEqualTo(sent(1, CompletionStatus.REMOTE_ERROR_RNR, 0));

        final ByteBuffer buffer = ByteBuffer.allocateDirect(64);
        b.postRecv(buffer, 100);
        sendMarker(2);
        assertThat(awaitOne(b)).as("the marker only").isEqualTo(receivedFromA(100, 8));
        assertThat(bytes(buffer, 0, 8)).isEqualTo(bytes(MARKER_TEXT, 0, 8));
    }

    @Test
    void theBytesSentAreThoseBetweenPositionAndLimitAtThePost() {
        final Guarded packet = new Guarded(1, 32);
        final ByteBuffer view = packet.view();
        final ByteBuffer buffer = ByteBuffer.allocateDirect(256);
        b.postRecv(buffer, 100);

        send(view, 1);
        view.position(0).limit(view.capacity()); // moves no byte, so allowed while the device owns them

        assertThat(awaitOne(a)).isEqualTo(sent(1, CompletionStatus.OK, 32));
        assertThat(awaitOne(b)).isEqualTo(receivedFromA(100, 32));
        assertThat(bytes(buffer, 0, 32)).isEqualTo(patternBytes(1, 32));
    }

    @Test
    void sendQueueRefusesPostsBeyondItsDepthUntilACompletionIsPolled() {
        final int depth = a.attributes().maxSendQueueDepth();
        final int receives = Math.min(depth, b.attributes().maxRecvQueueDepth());
        for (int i = 0; i < receives; i++) {
            assertThat(b.postRecv(ByteBuffer.allocateDirect(8), i)).isTrue();
        }
        for (int i = 0; i < depth; i++) {
            assertThat(send(pattern(i, 1), i)).as("send %d of a queue of %d", i, depth).isTrue();
        }

        assertThat(send(pattern(depth, 1), depth)).as("a post to a full send queue").isFalse();
        factory().progress();
        factory().progress();
        assertThat(send(pattern(depth, 1), depth)).as("completed or not, nothing is polled yet").isFalse();

        final Completion first = awaitOne(a);
        assertThat(send(pattern(depth, 1), depth)).as("after one completion is polled").isTrue();
        final List<Completion> rest = await(a, depth);
        final List<Long> wrIds = new ArrayList<>();
        wrIds.add(first.wrId());
        rest.forEach(c -> wrIds.add(c.wrId()));
        assertThat(wrIds).as("every send completes once").containsExactlyInAnyOrderElementsOf(
                IntStream.rangeClosed(0, depth).mapToObj(i -> (long) i).toList());
        assertThat(rest).allSatisfy(c -> assertThat(c.opcode()).isEqualTo(Opcode.SEND));
        assertNoCompletion(a);
    }

    @Test
    void receiveQueueRefusesPostsBeyondItsDepthUntilACompletionIsPolled() {
        final int depth = b.attributes().maxRecvQueueDepth();
        for (int i = 0; i < depth; i++) {
            assertThat(b.postRecv(ByteBuffer.allocateDirect(8), i)).as("receive %d of a queue of %d", i, depth)
                    .isTrue();
        }
        assertThat(b.postRecv(ByteBuffer.allocateDirect(8), depth)).as("a post to a full receive queue").isFalse();

        send(pattern(1, 8), 1);
        assertThat(awaitOne(a)).isEqualTo(sent(1, CompletionStatus.OK, 8));
        assertThat(b.postRecv(ByteBuffer.allocateDirect(8), depth)).as("received, but not polled yet").isFalse();

        assertThat(awaitOne(b)).isEqualTo(receivedFromA(0, 8));
        assertThat(b.postRecv(ByteBuffer.allocateDirect(8), depth)).as("after the completion is polled").isTrue();
    }

    @Test
    void pollHandsOverAtMostMaxCompletions() {
        for (int i = 0; i < 3; i++) {
            b.postRecv(ByteBuffer.allocateDirect(8), 100 + i);
            send(pattern(i, 8), i);
        }
        final List<Completion> got = new ArrayList<>();
        final HangGuard guard = new HangGuard();
        while (got.size() < 3) {
            final int before = got.size();
            final int polled = a.pollCompletions(got::add, 2);
            assertThat(polled).isBetween(0, 2).isEqualTo(got.size() - before);
            if (polled == 0) {
                guard.check(() -> "3 send completions");
                factory().progress();
            }
        }
        assertThat(got).extracting(Completion::wrId).containsExactlyInAnyOrder(0L, 1L, 2L);
        assertThatThrownBy(() -> a.pollCompletions(c -> { }, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void readOnlyReceiveBufferIsMisuse() {
        assertThatThrownBy(() -> b.postRecv(ByteBuffer.allocateDirect(8).asReadOnlyBuffer(), 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void everyPacketArrivesOnceIntactInTheBuffersInTheOrderPosted() {
        sendMany();
    }

    @Test
    void reorderedPacketsStillArriveOnceEachIntact() {
        option(LinkFaults.class).reorder(a, b);

        final List<Integer> order = sendMany();

        assertThat(order).as("the factory's reordering reordered nothing").isNotEqualTo(
                IntStream.range(0, order.size()).boxed().toList());
    }

    @Test
    void injectedReceiverNotReadyTakesNoReceiveBuffer() {
        final LinkFaults faults = option(LinkFaults.class);
        final ByteBuffer buffer = ByteBuffer.allocateDirect(64);
        b.postRecv(buffer, 100);
        faults.receiverNotReady(a, b);

        send(pattern(1, 8), 1);
        assertThat(awaitOne(a)).isEqualTo(sent(1, CompletionStatus.REMOTE_ERROR_RNR, 0));

        faults.clear(a, b);
        sendMarker(2);
        assertThat(awaitOne(b)).as("the marker, in the buffer still posted").isEqualTo(receivedFromA(100, 8));
        assertThat(bytes(buffer, 0, 8)).isEqualTo(bytes(MARKER_TEXT, 0, 8));
    }

    private static int lengthOf(int index, int mtu) {
        return Long.BYTES + (index * 997) % (mtu - Long.BYTES + 1);
    }

    /**
     * Sends packets of many lengths up to the MTU from a to b, each holding its index and a
     * pattern, into as many buffers posted first, and checks each arrives once, intact.
     *
     * @return the indices of the packets in the order of the buffers they landed in
     */
    private List<Integer> sendMany() {
        final int mtu = a.attributes().mtu();
        final int count = Math.min(MANY, Math.min(a.attributes().maxSendQueueDepth(),
                b.attributes().maxRecvQueueDepth()));
        final ByteBuffer[] buffers = new ByteBuffer[count];
        for (int i = 0; i < count; i++) {
            buffers[i] = ByteBuffer.allocateDirect(mtu);
            assertThat(b.postRecv(buffers[i], i)).isTrue();
        }
        for (int i = 0; i < count; i++) {
            final ByteBuffer packet = pattern(i, lengthOf(i, mtu));
            packet.putLong(0, i);
            assertThat(send(packet, i)).isTrue();
        }

        final List<Completion> sends = await(a, count);
        assertThat(sends).allSatisfy(c -> assertThat(c).isEqualTo(
                sent(c.wrId(), CompletionStatus.OK, lengthOf((int) c.wrId(), mtu))));
        assertThat(sends).extracting(Completion::wrId).as("each send completes once")
                .containsExactlyInAnyOrderElementsOf(IntStream.range(0, count).mapToObj(i -> (long) i).toList());

        final List<Completion> receives = await(b, count);
        assertThat(receives).extracting(Completion::wrId).as("buffers are taken in the order posted")
                .containsExactlyElementsOf(IntStream.range(0, count).mapToObj(i -> (long) i).toList());
        final Set<Integer> seen = new HashSet<>();
        final List<Integer> order = new ArrayList<>();
        for (Completion received : receives) {
            final ByteBuffer buffer = buffers[(int) received.wrId()];
            final long index = buffer.getLong(0);
            assertThat(index).as("index in buffer %d", received.wrId()).isBetween(0L, (long) count - 1);
            assertThat(seen.add((int) index)).as("packet %d arrives once", index).isTrue();
            final int length = lengthOf((int) index, mtu);
            assertThat(received).isEqualTo(receivedFromA(received.wrId(), length));
            assertThat(bytes(buffer, Long.BYTES, length - Long.BYTES)).as("packet %d intact", index)
                    .isEqualTo(bytes(pattern((int) index, length), Long.BYTES, length - Long.BYTES));
            order.add((int) index);
        }
        assertNoCompletion(b);
        return order;
    }
}
