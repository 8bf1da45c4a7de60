package org.rpcrdma4j.efa;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.rpcrdma4j.efa.CompletionEntry.Kind;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.Capability;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.RmaIov;
import org.rpcrdma4j.efa.device.sim.FaultPlan;
import org.rpcrdma4j.efa.device.sim.SimDeviceConfig;
import org.rpcrdma4j.efa.wire.BaseHeaderFlyweight;
import org.rpcrdma4j.efa.wire.DcEagerRtmFlyweight;
import org.rpcrdma4j.efa.wire.DcEagerRtwFlyweight;
import org.rpcrdma4j.efa.wire.ExtraFeature;
import org.rpcrdma4j.efa.wire.GoldenPacket;
import org.rpcrdma4j.efa.wire.PacketDecodeException;
import org.rpcrdma4j.efa.wire.PacketFlags;
import org.rpcrdma4j.efa.wire.PacketType;
import org.rpcrdma4j.efa.wire.ReceiptFlyweight;
import org.rpcrdma4j.efa.wire.ReqOptionalHeadersFlyweight;
import org.rpcrdma4j.efa.wire.RmaIovFlyweight;

/**
 * Delivery complete (EFA RDM protocol v4 §4.2) end to end on the simulated device: each DC subprotocol at the
 * sizes around its thresholds, byte for byte, plain and under reordering, RNR and a one-slot send queue, the
 * sender completing only once the receiver's data is in place (shown with the receiver's progress held and with
 * its receive not yet posted, against a sender without delivery complete, which completes); DC write atomics,
 * applied before they complete, each once, plain and under faults, refused and reported, and never sent to a peer
 * without the feature; the subprotocols that need no DC variant; RECEIPTs that name no waiting operation, and one
 * that never comes.
 */
class DeliveryCompleteTest {

    private static final EndpointConfig DC = EndpointConfig.DEFAULT.withDeliveryComplete(true);
    private static final SimDeviceConfig NO_RDMA = SimDeviceConfig.DEFAULT.withCapabilities(Set.of());
    private static final SimDeviceConfig READ_ONLY =
            SimDeviceConfig.DEFAULT.withCapabilities(EnumSet.of(Capability.RDMA_READ));
    private static final FaultPlan FAULTS = FaultPlan.NONE.withDelay(0, 4_000).withReorder(0.3, 4).withRnr(0.3);
    private static final int MTU = SimDeviceConfig.DEFAULT_MTU;
    private static final int CONNID = ReqOptionalHeadersFlyweight.CONNID_LENGTH;
    /** After the handshake a DC_EAGER_MSGRTM has a 16-byte header and the connid the peer asked for. */
    private static final int EAGER_MAX = MTU - DcEagerRtmFlyweight.MSGRTM_HEADER_LENGTH - CONNID;
    private static final int TAGGED_EAGER_MAX = MTU - DcEagerRtmFlyweight.TAGRTM_HEADER_LENGTH - CONNID;
    private static final int MEDIUM_MAX = EndpointConfig.DEFAULT_MEDIUM_MAX_SIZE;
    /** A DC_EAGER_RTW: 16-byte header, one rma_iov, the connid. */
    private static final int EAGER_RTW_MAX = MTU - DcEagerRtwFlyweight.HEADER_LENGTH - RmaIovFlyweight.LENGTH - CONNID;
    private static final int MIB = 1 << 20;
    private static final int CANARY = 16;
    private static final byte CANARY_BYTE = 0x5a;

    @RegisterExtension
    final SeedWatcher seed = new SeedWatcher();

    static Stream<Arguments> sends() {
        return Stream.of(false, true).flatMap(tagged -> {
            final int eager = tagged ? TAGGED_EAGER_MAX : EAGER_MAX;
            return Stream.of(Arguments.of(tagged, 0, EndpointCounter.EAGER_MESSAGES_SENT),
                    Arguments.of(tagged, 1, EndpointCounter.EAGER_MESSAGES_SENT),
                    Arguments.of(tagged, eager - 1, EndpointCounter.EAGER_MESSAGES_SENT),
                    Arguments.of(tagged, eager, EndpointCounter.EAGER_MESSAGES_SENT),
                    Arguments.of(tagged, eager + 1, EndpointCounter.MEDIUM_MESSAGES_SENT),
                    Arguments.of(tagged, MEDIUM_MAX - 1, EndpointCounter.MEDIUM_MESSAGES_SENT),
                    Arguments.of(tagged, MEDIUM_MAX, EndpointCounter.MEDIUM_MESSAGES_SENT),
                    Arguments.of(tagged, MEDIUM_MAX + 1, EndpointCounter.LONG_CTS_MESSAGES_SENT),
                    Arguments.of(tagged, MIB - 1, EndpointCounter.LONG_CTS_MESSAGES_SENT),
                    Arguments.of(tagged, MIB + 1, EndpointCounter.LONG_CTS_MESSAGES_SENT));
        });
    }

    static Stream<Arguments> writes() {
        return Stream.of(Arguments.of(0, EndpointCounter.EAGER_RTW_WRITES),
                Arguments.of(1, EndpointCounter.EAGER_RTW_WRITES),
                Arguments.of(EAGER_RTW_MAX - 1, EndpointCounter.EAGER_RTW_WRITES),
                Arguments.of(EAGER_RTW_MAX, EndpointCounter.EAGER_RTW_WRITES),
                Arguments.of(EAGER_RTW_MAX + 1, EndpointCounter.LONGCTS_RTW_WRITES),
                Arguments.of(MIB - 1, EndpointCounter.LONGCTS_RTW_WRITES),
                Arguments.of(MIB + 1, EndpointCounter.LONGCTS_RTW_WRITES));
    }

    @ParameterizedTest
    @MethodSource("sends")
    void aDcSendLandsAndCompletesAtTheReceipt(boolean tagged, int size, EndpointCounter protocol) {
        assertSend(pair(NO_RDMA), tagged, size, protocol);
    }

    @ParameterizedTest
    @MethodSource("sends")
    void aDcSendLandsUnderReorderingRnrAndAOneSlotSendQueue(boolean tagged, int size, EndpointCounter protocol) {
        assertSend(pair(faulty(NO_RDMA)), tagged, size, protocol);
    }

    @ParameterizedTest
    @MethodSource("writes")
    void aDcWriteLandsAndCompletesAtTheReceipt(int size, EndpointCounter protocol) {
        assertWrite(pair(NO_RDMA), size, protocol);
    }

    @ParameterizedTest
    @MethodSource("writes")
    void aDcWriteLandsUnderReorderingRnrAndAOneSlotSendQueue(int size, EndpointCounter protocol) {
        assertWrite(pair(faulty(NO_RDMA)), size, protocol);
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aDcSendDoesNotCompleteWhileTheReceiverDoesNotProgress(boolean deliveryComplete) {
        final SimPair pair = pair(NO_RDMA, EndpointConfig.DEFAULT.withDeliveryComplete(deliveryComplete));
        final ByteBuffer into = ByteBuffer.allocate(100);
        pair.b.recv(EfaEndpoint.ADDR_UNSPEC, into, 1);
        pair.a.send(pair.aToB, SimPair.pattern(100, 3), 2);

        holdB(pair, 2_000);

        // Without delivery complete the send completes once its packet is delivered to B's device.
        assertThat(pair.doneA).hasSize(deliveryComplete ? 0 : 1);
        assertThat(into.get(0)).as("B has not placed a byte").isZero();
        pair.runUntil(() -> pair.doneA.size() == 1 && pair.doneB.size() == 1);
        assertThat(into.rewind()).isEqualTo(SimPair.pattern(100, 3));
        assertThat(pair.doneA.get(0).ok()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(ints = {100, 20_000})
    void anUnexpectedDcMessageCompletesItsSendOnlyOnceAReceiveTookIt(int size) {
        final SimPair pair = pair(NO_RDMA);
        final long receiptsBefore = pair.b.statistics().counter(EndpointCounter.RECEIPTS_SENT);
        pair.a.send(pair.aToB, SimPair.pattern(size, 4), 2);
        pair.runUntil(() -> pair.b.statistics().gauge(EndpointGauge.UNEXPECTED_MESSAGES) == 1
                && pair.b.statistics().counter(EndpointCounter.BYTES_COPIED) >= size);
        for (int i = 0; i < 2_000; i++) {
            pair.step();
        }
        assertThat(pair.doneA).isEmpty();
        assertThat(pair.b.statistics().counter(EndpointCounter.RECEIPTS_SENT)).isEqualTo(receiptsBefore);

        final ByteBuffer into = ByteBuffer.allocate(size);
        pair.b.recv(EfaEndpoint.ADDR_UNSPEC, into, 1);
        pair.runUntil(() -> pair.doneA.size() == 1);

        assertThat(pair.doneB).hasSize(1);
        assertThat(into.rewind()).isEqualTo(SimPair.pattern(size, 4));
        assertThat(pair.doneA.get(0)).isEqualTo(
                new CompletionEntry(Kind.SEND, 2, size, 0, 0, false, pair.aToB, EfaErrorCode.SUCCESS));
    }

    @Test
    void aDcWriteDoesNotCompleteWhileTheTargetDoesNotProgress() {
        final SimPair pair = pair(NO_RDMA);
        final ByteBuffer target = ByteBuffer.allocate(100);
        final MemoryRegion remote = pair.b.register(target, EnumSet.of(Access.REMOTE_WRITE));
        final MemoryRegion local = pair.a.register(SimPair.pattern(100, 5), Set.of());
        pair.a.write(pair.aToB, local, 0, remote.iov(0, 100), 1);

        holdB(pair, 2_000);

        assertThat(pair.doneA).isEmpty();
        assertThat(target.get(0)).isZero();
        pair.runUntil(() -> pair.doneA.size() == 1);
        assertThat(target).isEqualTo(SimPair.pattern(100, 5));
    }

    @Test
    void aDcWriteAtomicDoesNotCompleteBeforeTheTargetAppliedIt() {
        final SimPair pair = pair(NO_RDMA);
        final ByteBuffer target = canaried(8);
        final MemoryRegion remote = pair.b.register(target.slice(CANARY, 8), EnumSet.of(Access.REMOTE_WRITE));
        target.putLong(CANARY, 40);
        final long receiptsBefore = pair.a.statistics().counter(EndpointCounter.RECEIPTS_RECEIVED);
        assertThat(pair.a.atomic(pair.aToB, littleEndian(2), remote.iov(0, 8), AtomicDatatype.UINT64, AtomicOp.SUM,
                1)).isTrue();

        holdB(pair, 2_000);

        assertThat(pair.doneA).isEmpty();
        assertThat(target.getLong(CANARY)).isEqualTo(40);
        pair.runUntil(() -> pair.doneA.size() == 1);
        assertThat(target.getLong(CANARY)).as("applied when its completion comes").isEqualTo(42);
        assertThat(pair.doneA.get(0)).isEqualTo(
                new CompletionEntry(Kind.ATOMIC, 1, 8, 0, 0, false, pair.aToB, EfaErrorCode.SUCCESS));
        assertThat(pair.a.statistics().counter(EndpointCounter.RECEIPTS_RECEIVED)).isEqualTo(receiptsBefore + 1);
        assertThat(pair.a.statistics().counter(EndpointCounter.WRITE_RTA_ATOMICS)).isEqualTo(1);
        assertCanaries(target, 8);
        settle(pair);
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void everyDcWriteAtomicIsAppliedOnceBeforeItCompletes(boolean faults) {
        // With faults: reordering, RNR, one-slot send queues, and one send buffer at the target for its RECEIPTs.
        final SimDeviceConfig device = faults ? faulty(NO_RDMA) : NO_RDMA;
        final SimPair pair = new SimPair(seed.seed(), device, device, DC,
                faults ? EndpointConfig.DEFAULT.withTxPacketCount(1) : EndpointConfig.DEFAULT);
        pair.handshake();
        final ByteBuffer target = canaried(16);
        final MemoryRegion remote = pair.b.register(target.slice(CANARY, 16), EnumSet.of(Access.REMOTE_WRITE));
        final long receiptsBefore = pair.a.statistics().counter(EndpointCounter.RECEIPTS_RECEIVED);
        final int count = 100;
        long sum = 0;
        for (int i = 0; i < count; i++) {
            final long add = 1L << (i % 40) | i;
            sum += add;
            assertThat(pair.a.atomic(pair.aToB, littleEndian(add), remote.iov(0, 8), AtomicDatatype.UINT64,
                    AtomicOp.SUM, i)).isTrue();
            // The second word: each swap in sending order, so the last one stays (FI_ORDER_SAS).
            assertThat(pair.a.atomic(pair.aToB, littleEndian(i), remote.iov(8, 8), AtomicDatatype.UINT64,
                    AtomicOp.ATOMIC_WRITE, count + i)).isTrue();
        }

        pair.runUntil(() -> pair.doneA.size() == 2 * count);

        assertThat(pair.doneA).allMatch(CompletionEntry::ok);
        assertThat(pair.doneA).extracting(CompletionEntry::context).doesNotHaveDuplicates();
        assertThat(target.getLong(CANARY)).isEqualTo(sum);
        assertThat(target.getLong(CANARY + 8)).isEqualTo(count - 1);
        assertThat(pair.a.statistics().counter(EndpointCounter.RECEIPTS_RECEIVED)).isEqualTo(receiptsBefore + 2 * count);
        assertThat(pair.b.statistics().counter(EndpointCounter.EMULATED_ATOMICS_SERVED)).isEqualTo(2 * count);
        assertCanaries(target, 16);
        settle(pair);
    }

    @Test
    void aRefusedDcWriteAtomicIsReportedByItsSendId() {
        final SimPair pair = pair(NO_RDMA);
        final ByteBuffer target = canaried(8);
        final MemoryRegion remote = pair.b.register(target.slice(CANARY, 8), EnumSet.of(Access.REMOTE_READ));
        final long receiptsBefore = pair.b.statistics().counter(EndpointCounter.RECEIPTS_SENT);

        // The region grants no remote write.
        pair.a.atomic(pair.aToB, littleEndian(2), remote.iov(0, 8), AtomicDatatype.UINT64, AtomicOp.SUM, 1);
        pair.runUntil(() -> pair.doneA.size() == 1);

        assertThat(pair.doneA.get(0).error()).isEqualTo(EfaErrorCode.REMOTE_ERROR_BAD_ADDRESS);
        assertThat(pair.b.statistics().counter(EndpointCounter.PEER_ERRORS_SENT)).isEqualTo(1);
        assertThat(pair.b.statistics().counter(EndpointCounter.RMA_ACCESS_REFUSED)).isEqualTo(1);
        assertThat(pair.b.statistics().counter(EndpointCounter.RECEIPTS_SENT)).isEqualTo(receiptsBefore);
        assertThat(target.getLong(CANARY)).isZero();
        assertCanaries(target, 8);
        settle(pair);
    }

    @Test
    void aPeerWithoutDeliveryCompleteGetsNoDcWriteAtomicAndTheAtomicFails() throws Exception {
        final SimPair pair = new SimPair(seed.seed(), NO_RDMA, NO_RDMA, DC, DC);
        final RawPeer peer = new RawPeer(pair.fabric, 3, pair.a);
        final long toPeer = pair.a.insert(peer.address());
        final RmaIov remote = new RmaIov(0x1000, 8, 5);

        pair.a.atomic(toPeer, littleEndian(1), remote, AtomicDatatype.UINT64, AtomicOp.SUM, 1);
        run(pair, peer);
        assertThat(pair.doneA).as("waits for the handshake").isEmpty();
        peer.send(RawPeer.handshake(ExtraFeature.PEER_ERROR.mask()));
        run(pair, peer);
        pair.a.atomic(toPeer, littleEndian(1), remote, AtomicDatatype.UINT64, AtomicOp.SUM, 2);
        run(pair, peer);

        assertThat(pair.doneA).extracting(CompletionEntry::context, CompletionEntry::error).containsExactly(
                Tuple.tuple(1L, EfaErrorCode.PEER_LACKS_FEATURE),
                Tuple.tuple(2L, EfaErrorCode.PEER_LACKS_FEATURE));
        assertThat(peer.types()).doesNotContain(PacketType.DC_WRITE_RTA, PacketType.WRITE_RTA);
        // A fetch has no DC variant: it goes as ever.
        pair.a.fetchAtomic(toPeer, littleEndian(1), ByteBuffer.allocate(8), remote, AtomicDatatype.UINT64,
                AtomicOp.SUM, 3);
        run(pair, peer);
        assertThat(peer.types()).containsOnlyOnce(PacketType.FETCH_RTA);
        assertThat(pair.a.statistics().counter(EndpointCounter.WRITE_RTA_ATOMICS)).isZero();
    }

    @Test
    void aTruncatedDcMessageIsDeliveredAsFarAsTheBufferReaches() {
        final SimPair pair = pair(NO_RDMA);
        final ByteBuffer into = ByteBuffer.allocate(10);
        pair.b.recv(EfaEndpoint.ADDR_UNSPEC, into, 1);
        pair.a.send(pair.aToB, SimPair.pattern(100, 6), 2);

        pair.runUntil(() -> pair.doneA.size() == 1);

        assertThat(pair.doneB.get(0).error()).isEqualTo(EfaErrorCode.MESSAGE_TRUNCATED);
        assertThat(pair.doneA.get(0).ok()).isTrue();
        assertThat(into.rewind()).isEqualTo(SimPair.pattern(100, 6).limit(10));
    }

    @Test
    void dcSendsBeforeTheHandshakeWaitForItAndKeepTheirOrder() {
        final SimPair pair = new SimPair(seed.seed(), NO_RDMA, NO_RDMA, DC, DC);
        final ByteBuffer[] into = new ByteBuffer[3];
        for (int i = 0; i < into.length; i++) {
            into[i] = ByteBuffer.allocate(MIB);
            pair.b.recv(EfaEndpoint.ADDR_UNSPEC, into[i], i);
        }
        final int[] sizes = {MIB, 10, 30_000};
        for (int i = 0; i < sizes.length; i++) {
            assertThat(pair.a.send(pair.aToB, SimPair.pattern(sizes[i], i), i)).isTrue();
        }
        assertThat(pair.a.statistics().counter(EndpointCounter.EAGER_MESSAGES_SENT)).as("nothing chosen yet").isZero();

        pair.runUntil(() -> pair.doneA.size() == 3 && pair.doneB.size() == 3);

        // Receives take messages in the order they were sent; a long one completes last.
        for (int i = 0; i < sizes.length; i++) {
            assertThat(into[i].slice(0, sizes[i])).isEqualTo(SimPair.pattern(sizes[i], i));
        }
        assertThat(pair.doneB).extracting(CompletionEntry::length).containsExactlyInAnyOrder((long) MIB, 10L, 30_000L);
        assertThat(pair.doneA).allMatch(CompletionEntry::ok);
        assertThat(pair.a.statistics().counter(EndpointCounter.RECEIPTS_RECEIVED)).isEqualTo(3);
    }

    @Test
    void subprotocolsThatAreDeliveryCompleteByNatureGetNoReceipt() {
        // Both ends read and write: a 1 MiB send goes long-read, a write direct.
        final SimPair full = pair(SimDeviceConfig.DEFAULT);
        assertSend(full, false, MIB, EndpointCounter.LONG_READ_MESSAGES_SENT);
        assertWrite(full, 100, EndpointCounter.DIRECT_WRITES);
        // The target only reads: a 1 MiB write goes long-read.
        assertWrite(pair(READ_ONLY), MIB, EndpointCounter.LONGREAD_RTW_WRITES);
    }

    @Test
    void aRefusedDcEagerWriteIsReportedByItsSendId() {
        final SimPair pair = pair(NO_RDMA);
        final ByteBuffer target = ByteBuffer.allocate(100);
        final MemoryRegion remote = pair.b.register(target, EnumSet.of(Access.REMOTE_WRITE));
        final MemoryRegion local = pair.a.register(SimPair.pattern(100, 7), Set.of());

        pair.a.write(pair.aToB, local, 0, new RmaIov(remote.address(), 100, remote.key() + 1), 1);
        pair.runUntil(() -> pair.doneA.size() == 1);

        // A plain EAGER_RTW names no operation and completes at delivery; its DC variant names one.
        assertThat(pair.doneA.get(0).error()).isEqualTo(EfaErrorCode.REMOTE_ERROR_BAD_ADDRESS);
        assertThat(pair.b.statistics().counter(EndpointCounter.PEER_ERRORS_SENT)).isEqualTo(1);
        assertThat(target).isEqualTo(ByteBuffer.allocate(100));
    }

    @Test
    void receiptsOwedForWantOfASendBufferAllGoOutAndFreeTheirReceives() {
        // B has one send buffer for its HANDSHAKE, CTS and RECEIPT packets: RECEIPTs wait for it.
        final SimPair pair = new SimPair(seed.seed(), NO_RDMA, NO_RDMA, DC, DC.withTxPacketCount(1));
        pair.handshake();
        final long receiptsBefore = pair.b.statistics().counter(EndpointCounter.RECEIPTS_SENT);
        final int count = 40;
        for (int i = 0; i < count; i++) {
            pair.b.recv(EfaEndpoint.ADDR_UNSPEC, ByteBuffer.allocate(100), i);
            pair.a.send(pair.aToB, SimPair.pattern(100, i), i);
        }

        pair.runUntil(() -> pair.doneA.size() == count);

        assertThat(pair.doneA).allMatch(CompletionEntry::ok);
        assertThat(pair.b.statistics().counter(EndpointCounter.RECEIPTS_SENT)).isEqualTo(receiptsBefore + count);
        assertThat(pair.b.statistics().gauge(EndpointGauge.RX_ENTRIES)).isZero();
        assertThat(pair.a.statistics().gauge(EndpointGauge.TX_ENTRIES)).isZero();
    }

    /** The provider's own DC eager packets, as a libfabric peer sends them before it is asked for its connid. */
    @ParameterizedTest
    @ValueSource(strings = {"DC_EAGER_MSGRTM/plain", "DC_EAGER_MSGRTM/cq_data", "DC_EAGER_TAGRTM/plain",
        "DC_EAGER_TAGRTM/cq_data"})
    void theProvidersDcEagerMessageIsDeliveredAndAnsweredWithTheReceiptItAsks(String name) throws Exception {
        final GoldenPacket golden = GoldenPacket.named(name);
        final int msgId = (int) GoldenPacket.integer(golden.fields().get("msg_id"));
        final long tag = golden.fields().containsKey("tag") ? GoldenPacket.integer(golden.fields().get("tag")) : 0;
        final SimPair pair = new SimPair(seed.seed(), NO_RDMA, NO_RDMA, DC,
                EndpointConfig.DEFAULT.withInitialMsgId(msgId));
        final RawPeer peer = new RawPeer(pair.fabric, 3, pair.b);
        pair.b.insert(peer.address());
        final ByteBuffer into = ByteBuffer.allocate(64);
        if (tag != 0) {
            pair.b.recvTagged(EfaEndpoint.ADDR_UNSPEC, into, tag, 0, 1);
        } else {
            pair.b.recv(EfaEndpoint.ADDR_UNSPEC, into, 1);
        }

        peer.send(ByteBuffer.wrap(golden.bytes()));
        run(pair, peer);

        final byte[] payload = HexFormat.of().parseHex((String) golden.fields().get("payload"));
        assertThat(pair.doneB).hasSize(1);
        assertThat(pair.doneB.get(0).length()).isEqualTo(payload.length);
        assertThat(pair.doneB.get(0).hasCqData()).isEqualTo(golden.fields().containsKey("opt_cq_data"));
        assertThat(into.slice(0, payload.length)).isEqualTo(ByteBuffer.wrap(payload));
        final ReceiptFlyweight receipt = new ReceiptFlyweight().wrap(received(peer, PacketType.RECEIPT), 0);
        assertThat(receipt.txId()).isEqualTo(GoldenPacket.integer(golden.fields().get("send_id")));
        assertThat(receipt.msgId()).isEqualTo(Integer.toUnsignedLong(msgId));
        assertThat(receipt.connid()).isEqualTo(Integer.toUnsignedLong(pair.b.address().connid()));
    }

    @Test
    void aReceiptThatNamesNoWaitingOperationIsDroppedAndALostOneEndsWithThePeer() throws Exception {
        final SimPair pair = new SimPair(seed.seed(), NO_RDMA, NO_RDMA, DC, DC);
        final RawPeer peer = new RawPeer(pair.fabric, 3, pair.a);
        final long toPeer = pair.a.insert(peer.address());
        final int connid = peer.address().connid();
        final MemoryRegion local = pair.a.register(ByteBuffer.allocate(100), Set.of());
        peer.send(RawPeer.handshake(ExtraFeature.DELIVERY_COMPLETE.mask()));
        run(pair, peer);
        pair.a.send(toPeer, ByteBuffer.allocate(100), 1);
        pair.a.write(toPeer, local, 0, new RmaIov(0x1000, 100, 5), 2);
        run(pair, peer);
        final DcEagerRtmFlyweight send = new DcEagerRtmFlyweight().wrap(received(peer, PacketType.DC_EAGER_MSGRTM), 0);
        final long sendId = send.sendId();
        final long msgId = send.msgId();
        final long writeId = new DcEagerRtwFlyweight().wrap(received(peer, PacketType.DC_EAGER_RTW), 0).sendId();

        peer.send(receipt(sendId, msgId + 1, connid));
        peer.send(receipt(1000, msgId, connid));
        run(pair, peer);
        assertThat(pair.doneA).as("a RECEIPT with another msg_id or send_id completes nothing").isEmpty();

        peer.send(receipt(sendId, msgId, connid));
        run(pair, peer);
        peer.send(receipt(sendId, msgId, connid));
        // A write has no msg_id, and the provider's RECEIPT carries none that means anything; nor need it a connid.
        peer.send(receipt(writeId, 0x5555, -1));
        run(pair, peer);

        assertThat(pair.doneA).containsExactly(
                new CompletionEntry(Kind.SEND, 1, 100, 0, 0, false, toPeer, EfaErrorCode.SUCCESS),
                new CompletionEntry(Kind.WRITE, 2, 100, 0, 0, false, toPeer, EfaErrorCode.SUCCESS));
        assertThat(pair.a.statistics().counter(EndpointCounter.RECEIPTS_RECEIVED)).isEqualTo(2);
        assertThat(pair.a.statistics().counter(EndpointCounter.ORPHAN_PACKETS)).as("forged twice, one duplicate")
                .isEqualTo(3);

        // A RECEIPT that never comes: the send waits until its peer goes, and ends with it.
        pair.a.send(toPeer, ByteBuffer.allocate(100), 3);
        run(pair, peer);
        assertThat(pair.doneA).hasSize(2);
        pair.a.remove(toPeer);
        pair.step();
        assertThat(pair.doneA.get(2)).isEqualTo(
                new CompletionEntry(Kind.SEND, 3, 0, 0, 0, false, toPeer, EfaErrorCode.CANCELED));
        assertThat(pair.a.statistics().gauge(EndpointGauge.TX_ENTRIES)).isZero();
    }

    private static void assertSend(SimPair pair, boolean tagged, int size, EndpointCounter protocol) {
        final ByteBuffer into = ByteBuffer.allocate(size + 1);
        final long protocolBefore = pair.a.statistics().counter(protocol);
        final long receiptsBefore = pair.a.statistics().counter(EndpointCounter.RECEIPTS_RECEIVED);
        if (tagged) {
            pair.b.recvTagged(EfaEndpoint.ADDR_UNSPEC, into, 0x77, 0, 1);
            assertThat(pair.a.sendTagged(pair.aToB, SimPair.pattern(size, size), 0x77, 2)).isTrue();
        } else {
            pair.b.recv(EfaEndpoint.ADDR_UNSPEC, into, 1);
            assertThat(pair.a.send(pair.aToB, SimPair.pattern(size, size), 2)).isTrue();
        }

        pair.runUntil(() -> pair.doneA.size() == 1);

        // The receiver's completion came first, and its data is in place when the sender's arrives.
        assertThat(pair.doneB).hasSize(1);
        assertThat(pair.doneB.get(0).length()).isEqualTo(size);
        assertThat(into.slice(0, size)).as("bytes of a %d-byte send", size).isEqualTo(SimPair.pattern(size, size));
        assertThat(pair.doneA.get(0)).isEqualTo(new CompletionEntry(tagged ? Kind.TAGGED_SEND : Kind.SEND, 2, size,
                0, 0, false, pair.aToB, EfaErrorCode.SUCCESS));
        assertThat(pair.a.statistics().counter(protocol)).as("carried by %s", protocol).isEqualTo(protocolBefore + 1);
        final boolean receipt = protocol != EndpointCounter.LONG_READ_MESSAGES_SENT;
        assertThat(pair.a.statistics().counter(EndpointCounter.RECEIPTS_RECEIVED))
                .isEqualTo(receiptsBefore + (receipt ? 1 : 0));
        settle(pair);
        pair.doneA.clear();
        pair.doneB.clear();
    }

    private static void assertWrite(SimPair pair, int size, EndpointCounter protocol) {
        final ByteBuffer target = ByteBuffer.allocate(size + 1);
        final MemoryRegion remote = pair.b.register(target.slice(0, size), EnumSet.of(Access.REMOTE_WRITE));
        final MemoryRegion local = pair.a.register(SimPair.pattern(size, ~size), Set.of());
        final long protocolBefore = pair.a.statistics().counter(protocol);
        final long receiptsBefore = pair.a.statistics().counter(EndpointCounter.RECEIPTS_RECEIVED);

        assertThat(pair.a.write(pair.aToB, local, 0, remote.iov(0, size), 3)).isTrue();
        pair.runUntil(() -> pair.doneA.size() == 1);

        assertThat(target.slice(0, size)).as("bytes of a %d-byte write, in place at its completion", size)
                .isEqualTo(SimPair.pattern(size, ~size));
        assertThat(target.get(size)).isZero();
        assertThat(pair.doneA.get(0)).isEqualTo(
                new CompletionEntry(Kind.WRITE, 3, size, 0, 0, false, pair.aToB, EfaErrorCode.SUCCESS));
        assertThat(pair.doneB).isEmpty();
        assertThat(pair.a.statistics().counter(protocol)).as("carried by %s", protocol).isEqualTo(protocolBefore + 1);
        final boolean receipt = protocol == EndpointCounter.EAGER_RTW_WRITES
                || protocol == EndpointCounter.LONGCTS_RTW_WRITES;
        assertThat(pair.a.statistics().counter(EndpointCounter.RECEIPTS_RECEIVED))
                .isEqualTo(receiptsBefore + (receipt ? 1 : 0));
        settle(pair);
        pair.doneA.clear();
    }

    /** @return zeroed bytes of {@code length} between canaries of {@link #CANARY} bytes, little endian */
    private static ByteBuffer canaried(int length) {
        final ByteBuffer bytes = ByteBuffer.allocate(length + 2 * CANARY).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < CANARY; i++) {
            bytes.put(i, CANARY_BYTE).put(CANARY + length + i, CANARY_BYTE);
        }
        return bytes;
    }

    private static void assertCanaries(ByteBuffer bytes, int length) {
        for (int i = 0; i < CANARY; i++) {
            assertThat(bytes.get(i)).isEqualTo(CANARY_BYTE);
            assertThat(bytes.get(CANARY + length + i)).isEqualTo(CANARY_BYTE);
        }
    }

    private static ByteBuffer littleEndian(long value) {
        return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, value);
    }

    /** Lets the last packets complete, then checks that nothing is left held. */
    private static void settle(SimPair pair) {
        pair.runUntil(() -> pair.a.idle() && pair.b.idle()
                && pair.a.statistics().gauge(EndpointGauge.TX_ENTRIES) == 0
                && pair.b.statistics().gauge(EndpointGauge.RX_ENTRIES) == 0);
        assertThat(pair.b.statistics().gauge(EndpointGauge.TX_ENTRIES)).isZero();
        assertThat(pair.a.statistics().gauge(EndpointGauge.RX_ENTRIES)).isZero();
    }

    private static void run(SimPair pair, RawPeer peer) {
        for (int i = 0; i < 200; i++) {
            pair.step();
            peer.poll();
        }
    }

    /** @return the one packet of a type the peer received */
    private static ByteBuffer received(RawPeer peer, PacketType type) throws PacketDecodeException {
        final List<PacketType> types = peer.types();
        assertThat(types).containsOnlyOnce(type);
        return peer.received().get(types.indexOf(type));
    }

    /** @return a RECEIPT (§4.2) naming {@code sendId} and {@code msgId}, with the connid unless it is -1 */
    private static ByteBuffer receipt(long sendId, long msgId, int connid) {
        final ByteBuffer packet = ByteBuffer.allocate(ReceiptFlyweight.HEADER_LENGTH);
        new BaseHeaderFlyweight().wrap(packet, 0).type(PacketType.RECEIPT.id())
                .version(BaseHeaderFlyweight.PROTOCOL_VERSION).flags(connid == -1 ? 0 : PacketFlags.CONNID_HDR_FLAG);
        new ReceiptFlyweight().wrap(packet, 0).txId(sendId).msgId(msgId)
                .connid(connid == -1 ? 0 : Integer.toUnsignedLong(connid));
        return packet;
    }

    /** Steps the fabric and A only: B's endpoint does nothing with what its device receives. */
    private static void holdB(SimPair pair, int steps) {
        for (int i = 0; i < steps; i++) {
            pair.now += SimPair.STEP_NS;
            pair.fabric.progress(pair.now);
            pair.a.progress(pair.now);
            pair.a.poll(pair.doneA::add, Integer.MAX_VALUE);
        }
    }

    private SimPair pair(SimDeviceConfig device) {
        return pair(device, DC);
    }

    private SimPair pair(SimDeviceConfig device, EndpointConfig configA) {
        final SimPair pair = new SimPair(seed.seed(), device, device, configA, EndpointConfig.DEFAULT);
        pair.handshake();
        return pair;
    }

    private static SimDeviceConfig faulty(SimDeviceConfig device) {
        return device.withSendQueueDepth(1).withFaults(FAULTS);
    }
}
