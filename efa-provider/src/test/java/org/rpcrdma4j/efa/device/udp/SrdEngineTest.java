package org.rpcrdma4j.efa.device.udp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.rpcrdma4j.efa.SeedWatcher;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.Completion;
import org.rpcrdma4j.efa.device.CompletionStatus;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.MemoryRegistrations;
import org.rpcrdma4j.efa.device.Opcode;
import org.rpcrdma4j.efa.device.RmaIov;

/**
 * The reliability layer alone: two {@link SrdEngine}s joined by an in-memory wire the test owns
 * (it loses, duplicates and reorders what it carries, from a seed), on a clock the test advances.
 * Nothing here sleeps or depends on real time.
 */
class SrdEngineTest {

    private static final long TICK_NS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final int QKEY_A = 0x1111_0001;
    private static final int QKEY_B = 0x2222_0001;
    private static final int MTU = 1024;

    @RegisterExtension
    final SeedWatcher seed = new SeedWatcher();

    /** One engine with its queue pair's shared structures. */
    final class Node {
        final InetSocketAddress address;
        final Counters counters = new Counters();
        final ConcurrentLinkedQueue<PostedRecv> receives = new ConcurrentLinkedQueue<>();
        final MemoryRegistrations registrations = new MemoryRegistrations(1, Integer.MAX_VALUE);
        final ConcurrentLinkedQueue<Completion> completions = new ConcurrentLinkedQueue<>();
        final Set<InetSocketAddress> refuse = ConcurrentHashMap.newKeySet();
        final SrdEngine engine;
        int probeVerdict = Prober.PENDING;

        Node(InetSocketAddress address, int qkey, UdpDeviceConfig config) {
            this.address = address;
            this.engine = new SrdEngine(config.toBuilder().withBindAddress(address).build(), qkey, MTU,
                    (datagram, to) -> wire.add(new Datagram(address, to, copy(datagram))),
                    (to, probe) -> new Prober.Probe() {
                        @Override
                        public int check() {
                            return probeVerdict;
                        }

                        @Override
                        public void close() {
                        }
                    }, counters, receives, registrations, completions, refuse);
        }

        void postRecv(int size, long wrId) {
            receives.add(new PostedRecv(ByteBuffer.allocate(size), wrId));
        }

        MemoryRegion register(ByteBuffer memory, Set<Access> access) {
            return registrations.register(memory, access);
        }

        List<Completion> drain() {
            final List<Completion> got = new ArrayList<>();
            Completion c;
            while ((c = completions.poll()) != null) {
                got.add(c);
            }
            return got;
        }

        long count(UdpCounter counter) {
            return counters.get(counter);
        }
    }

    record Datagram(InetSocketAddress from, InetSocketAddress to, ByteBuffer bytes) {
    }

    final List<Datagram> wire = new ArrayList<>();
    /** Datagrams the wire lost. */
    long dropped;
    /** How long what is on the wire takes to arrive. */
    long flightNs;
    long now = 1_000_000_000L;
    Node a;
    Node b;

    private static InetSocketAddress address(int last, int port) {
        try {
            return new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) last}), port);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    private static ByteBuffer copy(ByteBuffer datagram) {
        final ByteBuffer copy = ByteBuffer.allocate(datagram.remaining());
        copy.put(datagram.duplicate()).flip();
        return copy;
    }

    private static UdpDeviceConfig config() {
        return UdpDeviceConfig.builder()
                .withRto(TimeUnit.MILLISECONDS.toNanos(20), TimeUnit.MILLISECONDS.toNanos(5),
                        TimeUnit.MILLISECONDS.toNanos(160))
                .withMaxRetransmissions(6).withTickNs(TICK_NS).build();
    }

    private void twoNodes(UdpDeviceConfig config) {
        a = new Node(address(1, 1000), QKEY_A, config);
        b = new Node(address(2, 2000), QKEY_B, config);
    }

    private Node node(InetSocketAddress address) {
        return address.equals(a.address) ? a : address.equals(b.address) ? b : null;
    }

    private void send(int length, long wrId) {
        final ByteBuffer packet = ByteBuffer.allocate(length);
        for (int i = 0; i < length; i++) {
            packet.put(i, (byte) (wrId * 31 + i));
        }
        if (length >= Long.BYTES) {
            packet.putLong(0, wrId);
        }
        a.engine.submit(new UdpOp(Opcode.SEND, wrId, b.address, QKEY_B, packet, null, length), now);
    }

    /** Delivers what is on the wire now, in order; then every node flushes. @return how many */
    private int deliver() {
        return deliver(0, 0, false, new Random(0));
    }

    /** Delivers what is on the wire now with faults; then every node flushes. @return how many went */
    private int deliver(double loss, double duplication, boolean shuffle, Random random) {
        now += flightNs;
        final List<Datagram> batch = new ArrayList<>(wire);
        wire.clear();
        if (shuffle) {
            Collections.shuffle(batch, random);
        }
        int delivered = 0;
        for (Datagram datagram : batch) {
            if (random.nextDouble() < loss) {
                dropped++;
                continue;
            }
            final int copies = random.nextDouble() < duplication ? 2 : 1;
            for (int i = 0; i < copies; i++) {
                final Node to = node(datagram.to());
                if (to != null) {
                    to.engine.onDatagram(datagram.bytes().duplicate(), datagram.from(), now);
                    delivered++;
                }
            }
        }
        a.engine.flush(now);
        b.engine.flush(now);
        return delivered;
    }

    private void tick() {
        now += TICK_NS;
        a.engine.onTimer(now);
        b.engine.onTimer(now);
        a.engine.flush(now);
        b.engine.flush(now);
    }

    /** Delivers and ticks until {@code done}, with the given faults; fails after a bound of steps. */
    private void runUntil(BooleanSupplier done, double loss, double duplication, boolean shuffle, Random random) {
        for (int step = 0; step < 100_000; step++) {
            if (done.getAsBoolean()) {
                return;
            }
            if (deliver(loss, duplication, shuffle, random) == 0) {
                tick();
            }
        }
        fail("not done after 100,000 steps");
    }

    private void runUntil(BooleanSupplier done) {
        runUntil(done, 0, 0, false, new Random(0));
    }

    @Test
    void aLostFrameIsSentAgainAfterTheRtoAndArrivesOnce() {
        twoNodes(config());
        b.postRecv(64, 100);
        send(16, 1);
        a.engine.flush(now);
        assertThat(wire).hasSize(1);
        wire.clear(); // lost

        now += TimeUnit.MILLISECONDS.toNanos(19);
        a.engine.onTimer(now);
        a.engine.flush(now);
        assertThat(wire).as("nothing before the initial RTO of 20 ms").isEmpty();
        now += TimeUnit.MILLISECONDS.toNanos(1);
        a.engine.onTimer(now);
        a.engine.flush(now);
        assertThat(wire).hasSize(1);
        assertThat(a.count(UdpCounter.RETRANSMISSIONS)).isEqualTo(1);

        final List<Completion> atA = new ArrayList<>();
        final List<Completion> atB = new ArrayList<>();
        runUntil(() -> {
            atA.addAll(a.drain());
            atB.addAll(b.drain());
            return atA.size() == 1 && wire.isEmpty();
        });
        assertThat(atA).containsExactly(Completion.ofInitiated(1, Opcode.SEND, CompletionStatus.OK, 16));
        assertThat(atB).containsExactly(Completion.ofReceived(100, 16, null, UdpAddresses.gidOf(a.address.getAddress()),
                a.address.getPort()));
    }

    @Test
    void aDuplicatedFrameIsDeliveredOnceAndAcknowledgedAgain() {
        twoNodes(config());
        b.postRecv(64, 100);
        b.postRecv(64, 101);
        send(16, 1);
        a.engine.flush(now);
        final Datagram frame = wire.get(0);
        deliver();
        final long acksBefore = b.count(UdpCounter.ACKS_SENT);
        b.engine.onDatagram(frame.bytes().duplicate(), frame.from(), now);
        b.engine.flush(now);

        assertThat(b.drain()).hasSize(1);
        assertThat(b.count(UdpCounter.DUPLICATES)).isEqualTo(1);
        assertThat(b.count(UdpCounter.ACKS_SENT)).as("a duplicate is acknowledged again").isEqualTo(acksBefore + 1);
        assertThat(b.receives).as("the second buffer is still posted").hasSize(1);
    }

    @Test
    void reorderedFramesAreEachDeliveredOnce() {
        twoNodes(config());
        for (int i = 0; i < 32; i++) {
            b.postRecv(MTU, 100 + i);
            send(8 + i, i);
        }
        a.engine.flush(now);
        Collections.reverse(wire);
        final List<Completion> atA = new ArrayList<>();
        final List<Completion> atB = new ArrayList<>();
        runUntil(() -> {
            atA.addAll(a.drain());
            atB.addAll(b.drain());
            return atA.size() == 32;
        });
        assertThat(atA).allSatisfy(c -> assertThat(c.status()).isEqualTo(CompletionStatus.OK));
        assertThat(atB).hasSize(32);
        final Set<Long> indices = new HashSet<>();
        for (Completion c : atB) {
            assertThat(c.status()).isEqualTo(CompletionStatus.OK);
            indices.add((long) c.byteLength() - 8);
        }
        assertThat(indices).hasSize(32);
        assertThat(b.count(UdpCounter.RETRANSMISSIONS) + a.count(UdpCounter.RETRANSMISSIONS)).isZero();
    }

    @Test
    void oneAcknowledgementFrameCoversABatchOfDatagrams() {
        twoNodes(config());
        for (int i = 0; i < 10; i++) {
            b.postRecv(64, 100 + i);
            send(8, i);
        }
        a.engine.flush(now);
        assertThat(wire).hasSize(10);
        deliver(); // b takes all ten; its ten RESULT frames carry the acknowledgement
        assertThat(b.count(UdpCounter.ACKS_SENT)).as("acknowledgements ride on the answers").isZero();
        assertThat(wire).hasSize(10);
        deliver(); // a takes ten answers in one batch and acknowledges them in one frame
        assertThat(a.count(UdpCounter.ACKS_SENT)).isEqualTo(1);
        assertThat(wire).hasSize(1);
        deliver();
        assertThat(a.drain()).hasSize(10);
        assertThat(a.engine.inFlight(b.address)).isZero();
        assertThat(b.engine.inFlight(a.address)).isZero();
    }

    @Test
    void theRtoBacksOffToItsMaximumAndAMeasurementBringsItBack() {
        twoNodes(config());
        b.postRecv(64, 100);
        send(8, 1);
        a.engine.flush(now);
        wire.clear();
        final List<Long> rtos = new ArrayList<>();
        rtos.add(a.engine.rtoNs(b.address));
        for (int timeouts = 0; timeouts < 4; ) {
            tick();
            if (!wire.isEmpty()) {
                wire.clear();
                timeouts++;
                rtos.add(a.engine.rtoNs(b.address));
            }
        }
        assertThat(rtos).containsExactly(ms(20), ms(40), ms(80), ms(160), ms(160));

        tick();
        while (wire.isEmpty()) {
            tick();
        }
        // This one gets through; its answer acknowledges it. It was sent more than once, so (Karn)
        // it measures nothing and the backed-off RTO stays until a frame sent once is acknowledged.
        runUntil(() -> !a.drain().isEmpty());
        assertThat(a.engine.rtoNs(b.address)).isEqualTo(ms(160));
        b.postRecv(64, 101);
        send(8, 2);
        runUntil(() -> !a.drain().isEmpty());
        assertThat(a.engine.rtoNs(b.address)).as("measured on loopback-fast time: the minimum").isEqualTo(ms(5));
    }

    @Test
    void aPeerSilentPastTheBoundIsUnreachableAndEveryPendingOperationFails() {
        twoNodes(config());
        send(8, 1);
        send(8, 2);
        final ByteBuffer local = ByteBuffer.allocate(64);
        a.engine.submit(new UdpOp(Opcode.RDMA_READ, 3, b.address, QKEY_B, local, new RmaIov(0, 64, 1), 64), now);
        a.engine.flush(now);
        int timeouts = 0;
        final List<Completion> failed = new ArrayList<>();
        while (failed.size() < 3) {
            wire.clear(); // b is gone
            tick();
            failed.addAll(a.drain());
            if (++timeouts > 10_000) {
                fail("never declared unreachable");
            }
        }
        assertThat(failed).containsExactly(
                Completion.ofInitiated(1, Opcode.SEND, CompletionStatus.LOCAL_ERROR_UNREACH_REMOTE, 0),
                Completion.ofInitiated(2, Opcode.SEND, CompletionStatus.LOCAL_ERROR_UNREACH_REMOTE, 0),
                Completion.ofInitiated(3, Opcode.RDMA_READ, CompletionStatus.LOCAL_ERROR_UNREACH_REMOTE, 0));
        assertThat(a.count(UdpCounter.RETRANSMISSIONS)).as("the oldest frame sent 1 + 6 times, no more; a timeout "
                + "sends only the oldest (RFC 6298 §5.4)").isEqualTo(6);
        assertThat(a.count(UdpCounter.PEERS_UNREACHABLE)).isEqualTo(1);
        assertThat(a.engine.peerCount()).isZero();
        assertThat(a.engine.operationCount()).isZero();

        // The next operation starts a new stream, which b takes from PSN 0.
        b.postRecv(64, 100);
        send(8, 4);
        runUntil(() -> !a.drain().isEmpty() || b.completions.size() > 0 && wire.isEmpty());
        assertThat(b.drain()).hasSize(1);
    }

    @Test
    void aPortThatAnswersIcmpPortUnreachableIsBadDestQpn() {
        twoNodes(config());
        a.probeVerdict = Prober.PORT_UNREACHABLE;
        send(8, 1);
        a.engine.flush(now);
        final List<Completion> got = new ArrayList<>();
        while (got.isEmpty()) {
            wire.clear();
            tick();
            got.addAll(a.drain());
        }
        assertThat(got).containsExactly(
                Completion.ofInitiated(1, Opcode.SEND, CompletionStatus.REMOTE_ERROR_BAD_DEST_QPN, 0));
        assertThat(a.count(UdpCounter.PROBES_SENT)).isEqualTo(1);
        assertThat(a.count(UdpCounter.RETRANSMISSIONS)).as("found after the first timeout").isEqualTo(1);
    }

    @Test
    void theWindowBoundsFramesInFlight() {
        twoNodes(config().toBuilder().withWindow(4).build());
        for (int i = 0; i < 10; i++) {
            b.postRecv(64, 100 + i);
            send(8, i);
        }
        a.engine.flush(now);
        assertThat(wire).hasSize(4);
        assertThat(a.engine.inFlight(b.address)).isEqualTo(4);
        final List<Completion> atA = new ArrayList<>();
        int maxInFlight = 0;
        for (int step = 0; atA.size() < 10 && step < 1000; step++) {
            deliver();
            maxInFlight = Math.max(maxInFlight, a.engine.inFlight(b.address));
            atA.addAll(a.drain());
        }
        assertThat(atA).hasSize(10);
        assertThat(maxInFlight).isLessThanOrEqualTo(4);
    }

    @Test
    void aSendWithNoReceivePostedCompletesWithRnrAndLeavesNothingBehind() {
        twoNodes(config());
        send(8, 1);
        final List<Completion> atA = new ArrayList<>();
        runUntil(() -> {
            atA.addAll(a.drain());
            return !atA.isEmpty() && wire.isEmpty();
        });
        assertThat(atA).containsExactly(Completion.ofInitiated(1, Opcode.SEND, CompletionStatus.REMOTE_ERROR_RNR, 0));
        assertThat(b.count(UdpCounter.RNR)).isEqualTo(1);
        assertThat(b.drain()).isEmpty();
    }

    @Test
    void badDatagramsAreCountedAndDroppedAndGoodOnesStillPass() {
        twoNodes(config());
        b.postRecv(64, 100);
        send(16, 1);
        a.engine.flush(now);
        final ByteBuffer good = wire.remove(0).bytes();
        final InetSocketAddress from = a.address;

        b.engine.onDatagram(ByteBuffer.allocate(0), from, now);
        b.engine.onDatagram(ByteBuffer.allocate(SrdFrame.HEADER_LENGTH - 1), from, now);
        assertThat(b.count(UdpCounter.BAD_LENGTH)).isEqualTo(2);

        final ByteBuffer badMagic = copy(good);
        badMagic.put(0, (byte) 0);
        final ByteBuffer badVersion = copy(good);
        badVersion.put(SrdFrame.VERSION_OFFSET, (byte) 9);
        final ByteBuffer badType = copy(good);
        badType.put(SrdFrame.TYPE_OFFSET, (byte) 9);
        final ByteBuffer badOp = copy(good);
        badOp.put(SrdFrame.OP_OFFSET, (byte) 99);
        for (ByteBuffer bad : List.of(badMagic, badVersion, badType, badOp)) {
            b.engine.onDatagram(bad, from, now);
        }
        assertThat(b.count(UdpCounter.BAD_HEADER)).isEqualTo(4);

        final ByteBuffer hugeLength = SrdFrame.le(copy(good));
        hugeLength.putInt(SrdFrame.PAYLOAD_LENGTH_OFFSET, Integer.MAX_VALUE);
        final ByteBuffer negativeLength = SrdFrame.le(copy(good));
        negativeLength.putInt(SrdFrame.PAYLOAD_LENGTH_OFFSET, -1);
        final ByteBuffer truncated = copy(good).limit(good.remaining() - 1);
        for (ByteBuffer bad : List.of(hugeLength, negativeLength, truncated)) {
            b.engine.onDatagram(bad, from, now);
        }
        assertThat(b.count(UdpCounter.BAD_LENGTH)).isEqualTo(5);

        // An answer (not a request) from an address with no state, and an acknowledgement from one.
        final ByteBuffer answer = SrdFrame.le(copy(good));
        answer.put(SrdFrame.OP_OFFSET, SrdFrame.OP_RESULT);
        answer.putInt(SrdFrame.DEST_QKEY_OFFSET, QKEY_B);
        b.engine.onDatagram(answer, address(9, 9), now);
        final ByteBuffer ack = SrdFrame.le(ByteBuffer.allocate(SrdFrame.HEADER_LENGTH));
        SrdFrame.writeHeader(ack, SrdFrame.TYPE_ACK, QKEY_B, QKEY_A, 0, 0);
        SrdFrame.writeAck(ack, 0, 0, 0);
        b.engine.onDatagram(ack, address(9, 9), now);
        assertThat(b.count(UdpCounter.UNKNOWN_PEER)).isEqualTo(2);

        // An answer for another Q-Key.
        final ByteBuffer foreign = SrdFrame.le(copy(answer));
        foreign.putInt(SrdFrame.DEST_QKEY_OFFSET, QKEY_B ^ 1);
        b.engine.onDatagram(foreign, from, now);
        assertThat(b.count(UdpCounter.BAD_QKEY)).isEqualTo(1);

        // A PSN far outside the window.
        final ByteBuffer far = SrdFrame.le(copy(good));
        far.putInt(SrdFrame.PSN_OFFSET, UdpDeviceConfig.MAX_WINDOW + 5);
        b.engine.onDatagram(far, from, now);
        assertThat(b.count(UdpCounter.OUTSIDE_WINDOW)).isEqualTo(1);

        assertThat(b.drain()).as("none of them delivered").isEmpty();
        assertThat(b.count(UdpCounter.IO_ERRORS)).isZero();

        b.engine.onDatagram(good.duplicate(), from, now);
        b.engine.flush(now);
        assertThat(b.drain()).as("the good frame after them").hasSize(1);
        runUntil(() -> !a.drain().isEmpty());
    }

    @Test
    void rdmaRequestsOutsideARegistrationAreAnsweredWithARemoteAccessError() {
        twoNodes(config());
        final MemoryRegion region = b.register(ByteBuffer.allocate(256), EnumSet.of(Access.REMOTE_READ));
        a.engine.submit(new UdpOp(Opcode.RDMA_READ, 1, b.address, QKEY_B, ByteBuffer.allocate(16),
                new RmaIov(region.address() + 250, 16, region.key()), 16), now);
        a.engine.submit(new UdpOp(Opcode.RDMA_WRITE, 2, b.address, QKEY_B, ByteBuffer.allocate(16),
                region.iov(0, 16), 16), now);
        a.engine.submit(new UdpOp(Opcode.RDMA_READ, 3, b.address, QKEY_B, ByteBuffer.allocate(16),
                new RmaIov(region.address(), Long.MAX_VALUE, region.key()), 16), now);
        final List<Completion> got = new ArrayList<>();
        runUntil(() -> {
            got.addAll(a.drain());
            return got.size() == 3;
        });
        assertThat(got).containsExactlyInAnyOrder(
                Completion.ofInitiated(1, Opcode.RDMA_READ, CompletionStatus.REMOTE_ERROR_BAD_ADDRESS, 0),
                Completion.ofInitiated(2, Opcode.RDMA_WRITE, CompletionStatus.REMOTE_ERROR_BAD_ADDRESS, 0),
                Completion.ofInitiated(3, Opcode.RDMA_READ, CompletionStatus.REMOTE_ERROR_BAD_ADDRESS, 0));
        assertThat(b.count(UdpCounter.REMOTE_ACCESS_REFUSED)).isEqualTo(3);
    }

    @Test
    void everyPacketAndEveryRdmaByteArrivesOnceOverALossyDuplicatingReorderingWire() {
        twoNodes(config());
        final Random random = new Random(seed.seed());
        final int sends = 300;
        for (int i = 0; i < sends; i++) {
            b.postRecv(MTU, 1000 + i);
            send(Long.BYTES + random.nextInt(MTU - Long.BYTES + 1), i);
        }
        final int size = 200_000;
        final ByteBuffer remote = ByteBuffer.allocate(size);
        random.nextBytes(remote.array());
        final MemoryRegion region = b.register(remote, EnumSet.of(Access.REMOTE_READ, Access.REMOTE_WRITE));
        final ByteBuffer readInto = ByteBuffer.allocate(size);
        a.engine.submit(new UdpOp(Opcode.RDMA_READ, 10_000, b.address, QKEY_B, readInto, region.iov(0, size), size),
                now);
        final ByteBuffer writeFrom = ByteBuffer.allocate(size / 2);
        random.nextBytes(writeFrom.array());
        final ByteBuffer target = ByteBuffer.allocate(size / 2);
        final MemoryRegion targetRegion = b.register(target, EnumSet.of(Access.REMOTE_WRITE));
        a.engine.submit(new UdpOp(Opcode.RDMA_WRITE, 10_001, b.address, QKEY_B, writeFrom,
                targetRegion.iov(0, size / 2), size / 2), now);

        final List<Completion> atA = new ArrayList<>();
        final List<Completion> atB = new ArrayList<>();
        runUntil(() -> {
            atA.addAll(a.drain());
            atB.addAll(b.drain());
            return atA.size() == sends + 2;
        }, 0.1, 0.05, true, random);

        assertThat(atA).allSatisfy(c -> assertThat(c.status()).isEqualTo(CompletionStatus.OK));
        assertThat(atA).extracting(Completion::wrId).doesNotHaveDuplicates();
        assertThat(atB).hasSize(sends);
        assertThat(readInto.array()).isEqualTo(remote.array());
        assertThat(target.array()).isEqualTo(writeFrom.array());
        assertThat(a.count(UdpCounter.RETRANSMISSIONS)).as("loss was repaired").isPositive();
        assertThat(b.count(UdpCounter.DUPLICATES)).as("duplicates were dropped").isPositive();
        // No storm: each retransmission follows a loss or a timeout, so they stay well below the
        // frames sent (10% loss each way).
        assertThat(a.count(UdpCounter.RETRANSMISSIONS)).isLessThan(a.count(UdpCounter.DATAGRAMS_SENT) / 2);
    }

    /** Sends one frame and its answer both ways, so that the engine has measured a round trip. */
    private void measureARoundTrip() {
        b.postRecv(64, 99);
        send(8, 99);
        final List<Completion> atA = new ArrayList<>();
        runUntil(() -> {
            atA.addAll(a.drain());
            return !atA.isEmpty() && wire.isEmpty();
        });
        b.drain();
    }

    @Test
    void everyHoleInTheSackBitmapIsSentAgainAtOnceAndOnlyThose() {
        twoNodes(config());
        measureARoundTrip();
        for (int i = 0; i < 40; i++) {
            b.postRecv(MTU, 100 + i);
            send(16, i);
        }
        a.engine.flush(now);
        assertThat(wire).hasSize(40);
        for (int lost : new int[] {30, 20, 10, 5}) {
            wire.remove(lost);
        }
        deliver(); // b answers 36; each answer acknowledges, the SACK bitmap shows four holes
        final long before = a.count(UdpCounter.RETRANSMISSIONS);
        deliver(); // a takes the answers
        assertThat(a.count(UdpCounter.RETRANSMISSIONS) - before).as("the four holes, each once").isEqualTo(4);
        final List<Completion> atA = new ArrayList<>();
        runUntil(() -> {
            atA.addAll(a.drain());
            return atA.size() == 40 && wire.isEmpty();
        });
        assertThat(atA).extracting(Completion::wrId).doesNotHaveDuplicates();
        assertThat(b.drain()).hasSize(40);
        assertThat(a.count(UdpCounter.TIMEOUTS)).as("no timeout needed").isZero();
        assertThat(a.count(UdpCounter.RETRANSMISSIONS)).isEqualTo(4);
    }

    @Test
    void aLostTailIsFoundByAProbeNotByTheTimeout() {
        twoNodes(config());
        measureARoundTrip();
        for (int i = 0; i < 10; i++) {
            b.postRecv(MTU, 100 + i);
            send(16, i);
        }
        a.engine.flush(now);
        wire.subList(7, 10).clear(); // the last three: nothing after them shows them missing
        final List<Completion> atA = new ArrayList<>();
        runUntil(() -> {
            atA.addAll(a.drain());
            return atA.size() == 10 && wire.isEmpty();
        });
        assertThat(atA).extracting(Completion::wrId).doesNotHaveDuplicates();
        assertThat(b.drain()).hasSize(10);
        assertThat(a.count(UdpCounter.TAIL_PROBES)).isEqualTo(1);
        assertThat(a.count(UdpCounter.TIMEOUTS)).isZero();
        assertThat(a.count(UdpCounter.RETRANSMISSIONS)).as("the probe and the two frames it showed missing")
                .isEqualTo(3);
        assertThat(b.count(UdpCounter.DUPLICATES)).isZero();
    }

    @Test
    void bulkTransfersOverALossyWireSendAgainOnlyWhatWasLost() {
        twoNodes(config());
        flightNs = TimeUnit.MICROSECONDS.toNanos(100);
        final Random random = new Random(seed.seed());
        final int size = 4 << 20;
        final ByteBuffer remote = ByteBuffer.allocate(size);
        random.nextBytes(remote.array());
        final MemoryRegion region = b.register(remote, EnumSet.of(Access.REMOTE_READ));
        final ByteBuffer readInto = ByteBuffer.allocate(size);
        a.engine.submit(new UdpOp(Opcode.RDMA_READ, 1, b.address, QKEY_B, readInto, region.iov(0, size), size), now);
        final ByteBuffer writeFrom = ByteBuffer.allocate(size);
        random.nextBytes(writeFrom.array());
        final ByteBuffer target = ByteBuffer.allocate(size);
        final MemoryRegion targetRegion = b.register(target, EnumSet.of(Access.REMOTE_WRITE));
        a.engine.submit(new UdpOp(Opcode.RDMA_WRITE, 2, b.address, QKEY_B, writeFrom, targetRegion.iov(0, size), size),
                now);

        final List<Completion> atA = new ArrayList<>();
        runUntil(() -> {
            atA.addAll(a.drain());
            return atA.size() == 2;
        }, 0.05, 0, false, random);

        assertThat(atA).extracting(Completion::status).containsOnly(CompletionStatus.OK);
        assertThat(readInto.array()).isEqualTo(remote.array());
        assertThat(target.array()).isEqualTo(writeFrom.array());
        final long retransmissions = a.count(UdpCounter.RETRANSMISSIONS) + b.count(UdpCounter.RETRANSMISSIONS);
        assertThat(dropped).as("the wire lost frames").isPositive();
        assertThat(retransmissions).as("frames sent again (%s) for %d lost", retransmissions, dropped)
                .isLessThanOrEqualTo(2 * dropped);
    }

    @Test
    void bothWaysAtOnceOverALossyDuplicatingReorderingStallingWireEverythingArrivesOnceAndNoPeerIsLost() {
        twoNodes(config());
        final Random random = new Random(seed.seed());
        final int size = 1 << 20;
        final int sends = 200;
        final List<ByteBuffer> expected = new ArrayList<>();
        final List<ByteBuffer> got = new ArrayList<>();
        for (Node[] pair : new Node[][] {{a, b}, {b, a}}) {
            final Node from = pair[0];
            final Node to = pair[1];
            final ByteBuffer remote = ByteBuffer.allocate(size);
            random.nextBytes(remote.array());
            final MemoryRegion region = to.register(remote, EnumSet.of(Access.REMOTE_READ));
            final ByteBuffer readInto = ByteBuffer.allocate(size);
            from.engine.submit(new UdpOp(Opcode.RDMA_READ, 1, to.address, to == b ? QKEY_B : QKEY_A, readInto,
                    region.iov(0, size), size), now);
            expected.add(remote);
            got.add(readInto);
            for (int i = 0; i < sends; i++) {
                to.postRecv(MTU, 1000 + i);
                from.engine.submit(new UdpOp(Opcode.SEND, 10 + i, to.address, to == b ? QKEY_B : QKEY_A,
                        ByteBuffer.allocate(8 + i % 512), null, 8 + i % 512), now);
            }
        }
        final List<Completion> atA = new ArrayList<>();
        final List<Completion> atB = new ArrayList<>();
        for (int step = 0; atA.size() + atB.size() < 4 * sends + 2; step++) {
            assertThat(step).as("steps").isLessThan(1_000_000);
            // A round trip of 0.1 to 1 ms, and now and then one side stalls for 20 ms (a busy CPU).
            flightNs = TimeUnit.MICROSECONDS.toNanos(50 + random.nextInt(450))
                    + (random.nextInt(100) == 0 ? ms(20) : 0);
            if (deliver(0.05, 0.01, true, random) == 0) {
                tick();
            }
            atA.addAll(a.drain());
            atB.addAll(b.drain());
        }
        assertThat(got).isEqualTo(expected);
        for (List<Completion> at : List.of(atA, atB)) {
            assertThat(at).extracting(Completion::status).containsOnly(CompletionStatus.OK);
            assertThat(at).hasSize(2 * sends + 1);
        }
        assertThat(a.count(UdpCounter.PEERS_UNREACHABLE) + b.count(UdpCounter.PEERS_UNREACHABLE)).isZero();
        final long retransmissions = a.count(UdpCounter.RETRANSMISSIONS) + b.count(UdpCounter.RETRANSMISSIONS);
        assertThat(retransmissions).as("frames sent again (%s) for %d lost", retransmissions, dropped)
                .isLessThanOrEqualTo(3 * dropped);
    }

    private static long ms(long value) {
        return TimeUnit.MILLISECONDS.toNanos(value);
    }
}
