package org.rpcrdma4j.efa;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.AddressHandle;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.Opcode;
import org.rpcrdma4j.efa.device.RmaIov;
import org.rpcrdma4j.efa.device.sim.SimDevice;
import org.rpcrdma4j.efa.wire.AtomRspFlyweight;
import org.rpcrdma4j.efa.wire.BaseHeaderFlyweight;
import org.rpcrdma4j.efa.wire.ExtraFeature;
import org.rpcrdma4j.efa.wire.GoldenPacket;
import org.rpcrdma4j.efa.wire.HandshakeFlyweight;
import org.rpcrdma4j.efa.wire.PacketDecoder;
import org.rpcrdma4j.efa.wire.PacketType;
import org.rpcrdma4j.efa.wire.PeerErrorFlyweight;
import org.rpcrdma4j.efa.wire.ReceiptFlyweight;
import org.rpcrdma4j.efa.wire.RmaIovFlyweight;
import org.rpcrdma4j.efa.wire.RtaFlyweight;

/**
 * The endpoint as the peer of a libfabric provider's atomics: a hand-built peer sends the provider's golden RTA
 * packets (vectors/libfabric/packets.jsonl, msg_id and rma_iov changed to name this endpoint's registration), and
 * answers the endpoint's own FETCH_RTA with the golden ATOMRSP. Applied elements and the ATOMRSP and RECEIPT the
 * endpoint answers with are checked byte for byte; malformed RTAs are refused, counted and reported, take their
 * msg_id's turn, and touch nothing.
 */
class AtomicTargetTest {

    private static final int CANARY = 32;
    private static final byte CANARY_BYTE = 0x5a;
    /** The golden operand d0..d7, as the UINT64 it is. */
    private static final long D0 = 0xd7d6d5d4d3d2d1d0L;
    private static final long D8 = 0xdfdedddcdbdad9d8L;
    private static final long GOLDEN_RECV_ID = 0x31323334L;
    private static final long GOLDEN_SEND_ID = 0x21222324L;

    private SimPair pair;
    private EfaEndpoint b;
    private SimDevice peer;
    private AddressHandle toB;
    private ByteBuffer memory;
    private MemoryRegion region;
    private final List<ByteBuffer> received = new ArrayList<>();
    private final ByteBuffer[] buffers = new ByteBuffer[16];
    private int msgId;
    private int wrId;

    @BeforeEach
    void peerWithPeerError() {
        pair = new SimPair(1);
        b = pair.b;
        memory = ByteBuffer.allocate(16 + 2 * CANARY);
        for (int i = 0; i < memory.capacity(); i++) {
            memory.put(i, CANARY_BYTE);
        }
        region = b.register(memory.slice(CANARY, 16), EnumSet.of(Access.REMOTE_READ, Access.REMOTE_WRITE));
        peer = pair.fabric.createDevice(new Gid(0xfe80_0000_0000_0000L, 3), 11);
        for (int i = 0; i < buffers.length; i++) {
            buffers[i] = ByteBuffer.allocate(8192);
            peer.postRecv(buffers[i], i);
        }
        toB = peer.createAddressHandle(b.address().gid());
        final ByteBuffer handshake = ByteBuffer.allocate(HandshakeFlyweight.EXTRA_INFO_OFFSET
                + HandshakeFlyweight.EXTRA_INFO_WORD_LENGTH);
        new BaseHeaderFlyweight().wrap(handshake, 0).type(PacketType.HANDSHAKE.id())
                .version(BaseHeaderFlyweight.PROTOCOL_VERSION).flags(0);
        new HandshakeFlyweight().wrap(handshake, 0).nextraP3(HandshakeFlyweight.MIN_NEXTRA_P3 + 1)
                .extraInfo(0, ExtraFeature.PEER_ERROR.mask());
        b.insert(EndpointAddress.of(peer.address()));
        send(handshake);
        run();
        assertThat(types()).containsExactly(PacketType.HANDSHAKE);
        received.clear();
    }

    @Test
    void theProvidersRtasAreAppliedAndAnsweredWithItsAtomRsp() {
        // FETCH_RTA/plain: UINT64 SUM of d0..d7 onto d0..d7, answered with the elements before.
        setElement(D0);
        send(golden("FETCH_RTA/plain", 8));
        run();
        assertThat(element()).isEqualTo(D0 + D0);
        assertThat(hex(received)).containsExactly(hex(goldenAtomRsp(b.address().connid())));

        // COMPARE_RTA/plain: UINT64 CSWAP, buf d0..d7, compare d8..df: equal to the target, so swapped.
        received.clear();
        setElement(D8);
        send(golden("COMPARE_RTA/plain", 8));
        run();
        assertThat(element()).isEqualTo(D0);
        assertThat(received).hasSize(1);
        final ByteBuffer answer = received.get(0);
        assertThat(new AtomRspFlyweight().wrap(answer, 0).recvId()).isEqualTo(GOLDEN_RECV_ID);
        assertThat(answer.order(ByteOrder.LITTLE_ENDIAN).getLong(AtomRspFlyweight.HEADER_LENGTH)).isEqualTo(D8);

        // WRITE_RTA/plain: UINT64 SUM, no answer.
        received.clear();
        send(golden("WRITE_RTA/plain", 8));
        run();
        assertThat(element()).isEqualTo(D0 + D0);
        assertThat(received).isEmpty();
        assertThat(b.statistics().counter(EndpointCounter.EMULATED_ATOMICS_SERVED)).isEqualTo(3);
        assertClean();
    }

    @Test
    void theProvidersDcWriteRtaIsAppliedAndAnsweredWithItsReceipt() {
        // DC_WRITE_RTA/plain: UINT64 SUM of d0..d7, send_id 0x21222324, after a WRITE_RTA of the same.
        setElement(1);
        send(golden("WRITE_RTA/plain", 8));
        final ByteBuffer dc = golden("DC_WRITE_RTA/plain", 8);
        final long rtaMsgId = new RtaFlyweight().wrap(dc, 0).msgId();
        send(dc);
        run();

        assertThat(element()).isEqualTo(1 + D0 + D0);
        // The golden RECEIPT (send_id 0x21222324) with the RTA's msg_id and this endpoint's connid.
        final ByteBuffer expected = ByteBuffer.wrap(GoldenPacket.named("RECEIPT/connid").bytes());
        new ReceiptFlyweight().wrap(expected, 0).msgId(rtaMsgId)
                .connid(Integer.toUnsignedLong(b.address().connid()));
        assertThat(new ReceiptFlyweight().wrap(expected, 0).txId()).isEqualTo(GOLDEN_SEND_ID);
        assertThat(hex(received)).containsExactly(hex(expected));
        assertThat(b.statistics().counter(EndpointCounter.EMULATED_ATOMICS_SERVED)).isEqualTo(2);
        assertThat(b.statistics().counter(EndpointCounter.RECEIPTS_SENT)).isEqualTo(1);
        assertThat(b.statistics().gauge(EndpointGauge.RX_ENTRIES)).isZero();
        assertClean();
    }

    @Test
    void aRefusedDcWriteRtaIsReportedByItsSendIdAndTakesItsTurn() {
        setElement(1);
        final ByteBuffer dc = golden("DC_WRITE_RTA/plain", 8);
        new RmaIovFlyweight().wrap(dc, RtaFlyweight.RMA_IOV_OFFSET).key(Integer.toUnsignedLong(region.key()) + 1);
        send(dc);
        send(golden("FETCH_RTA/plain", 8));
        run();

        assertThat(element()).isEqualTo(1 + D0);
        assertThat(types()).containsExactlyInAnyOrder(PacketType.PEER_ERROR, PacketType.ATOMRSP);
        final PeerErrorFlyweight error = new PeerErrorFlyweight().wrap(
                received.get(types().indexOf(PacketType.PEER_ERROR)), 0);
        assertThat(error.refKind()).isEqualTo(PeerErrorFlyweight.REF_OPE_INDEX);
        assertThat(error.opId()).isEqualTo(GOLDEN_SEND_ID);
        assertThat(b.statistics().counter(EndpointCounter.RMA_ACCESS_REFUSED)).isEqualTo(1);
        assertThat(b.statistics().counter(EndpointCounter.RECEIPTS_SENT)).isZero();
        assertClean();
    }

    /** One way an RTA is malformed: the packet to send, and whether a PEER_ERROR answers it. */
    static Stream<Arguments> malformed() {
        return Stream.of(
                Arguments.of("FLOAT, which is not served", edit("FETCH_RTA/plain", 8, r -> r.atomicDatatype(8)), true),
                Arguments.of("a datatype libfabric has not", edit("COMPARE_RTA/plain", 8, r -> r.atomicDatatype(99)),
                        true),
                Arguments.of("FI_DIFF, no atomic", edit("FETCH_RTA/plain", 8, r -> r.atomicOp(19)), true),
                Arguments.of("an op beyond fi_op", edit("WRITE_RTA/plain", 8, r -> r.atomicOp(0xffff_ffffL)), false),
                Arguments.of("ATOMIC_READ as a write", edit("WRITE_RTA/plain", 8, r -> r.atomicOp(10)), false),
                Arguments.of("CSWAP as a fetch", edit("FETCH_RTA/plain", 8, r -> r.atomicOp(12)), true),
                Arguments.of("SUM as a compare", edit("COMPARE_RTA/plain", 8, r -> r.atomicOp(2)), true),
                Arguments.of("no whole element", edit("WRITE_RTA/plain", 7, r -> { }), false),
                Arguments.of("no element", edit("FETCH_RTA/plain", 0, r -> { }), true),
                Arguments.of("an operand shorter than the rma_iov", edit("FETCH_RTA/plain", 16, r -> { }), true),
                Arguments.of("a compare without its compare data", edit("COMPARE_RTA/plain", 16, r -> { }), true),
                Arguments.of("two rma_iov entries", twoRmaIov(), false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformed")
    void aMalformedRtaIsRefusedReportedAndTakesItsTurn(String what, PacketEdit edit, boolean reported) {
        setElement(1);
        send(edit.apply(this));
        // The next msg_id is served: the refused one took its turn.
        send(golden("FETCH_RTA/plain", 8));
        run();

        assertThat(b.statistics().counter(EndpointCounter.RMA_ACCESS_REFUSED)).isEqualTo(1);
        assertThat(b.statistics().counter(EndpointCounter.EMULATED_ATOMICS_SERVED)).isEqualTo(1);
        assertThat(element()).isEqualTo(1 + D0);
        assertThat(types()).containsExactlyInAnyOrderElementsOf(reported
                ? List.of(PacketType.PEER_ERROR, PacketType.ATOMRSP) : List.of(PacketType.ATOMRSP));
        if (reported) {
            final PeerErrorFlyweight error = new PeerErrorFlyweight().wrap(
                    received.get(types().indexOf(PacketType.PEER_ERROR)), 0);
            assertThat(error.refKind()).isEqualTo(PeerErrorFlyweight.REF_OPE_INDEX);
            assertThat(error.opId()).isEqualTo(GOLDEN_RECV_ID);
            assertThat(error.provErrno()).isEqualTo(EfaErrorCode.REMOTE_ERROR_BAD_ADDRESS.value());
        }
        assertClean();
    }

    @Test
    void theProvidersAtomRspCompletesAFetchAndAStrayOneIsDropped() {
        final long toPeer = b.insert(EndpointAddress.of(peer.address()));
        final ByteBuffer result = ByteBuffer.allocate(8);
        // The hand-built peer checks nothing: any rma_iov will do.
        assertThat(b.fetchAtomic(toPeer, ByteBuffer.allocate(8), result, new RmaIov(0x1000, 8, 7),
                AtomicDatatype.UINT64, AtomicOp.SUM, 5)).isTrue();
        run();
        assertThat(types()).containsExactly(PacketType.FETCH_RTA);
        final long recvId = new RtaFlyweight().wrap(received.get(0), 0).recvId();
        final int connid = EndpointAddress.of(peer.address()).connid();

        send(atomRsp(connid, recvId + 1, 8));
        send(atomRsp(connid, recvId, 4));
        run();
        assertThat(pair.doneB).isEmpty();
        assertThat(b.statistics().counter(EndpointCounter.ORPHAN_PACKETS)).isEqualTo(1);
        assertThat(b.statistics().counter(EndpointCounter.MALFORMED_PACKETS)).isEqualTo(1);

        send(atomRsp(connid, recvId, 8));
        run();
        assertThat(pair.doneB).containsExactly(new CompletionEntry(CompletionEntry.Kind.FETCH_ATOMIC, 5, 8, 0, 0, false,
                toPeer, EfaErrorCode.SUCCESS));
        assertThat(result.order(ByteOrder.LITTLE_ENDIAN).getLong(0)).isEqualTo(D0);
        send(atomRsp(connid, recvId, 8));
        run();
        assertThat(b.statistics().counter(EndpointCounter.ORPHAN_PACKETS)).as("a duplicate").isEqualTo(2);
        assertThat(b.statistics().counter(EndpointCounter.PROGRESS_ERRORS)).isZero();
    }

    /** Builds a packet from the test's state: its region and its next msg_id. */
    @FunctionalInterface
    interface PacketEdit {
        ByteBuffer apply(AtomicTargetTest test);
    }

    private static PacketEdit edit(String name, long length, Consumer<RtaFlyweight> change) {
        return test -> {
            final ByteBuffer packet = test.golden(name, length);
            change.accept(new RtaFlyweight().wrap(packet, 0));
            return packet;
        };
    }

    /** WRITE_RTA/2rma_iov+connid with the plain variant's flags: both entries name the region. */
    private static PacketEdit twoRmaIov() {
        return test -> {
            final ByteBuffer golden = test.golden("WRITE_RTA/plain", 8);
            final int at = RtaFlyweight.RMA_IOV_OFFSET + RmaIovFlyweight.LENGTH;
            final ByteBuffer packet = ByteBuffer.allocate(golden.capacity() + RmaIovFlyweight.LENGTH);
            packet.put(0, golden, 0, at).put(at, golden, RtaFlyweight.RMA_IOV_OFFSET, golden.capacity()
                    - RtaFlyweight.RMA_IOV_OFFSET);
            new RtaFlyweight().wrap(packet, 0).rmaIovCount(2);
            return packet;
        };
    }

    /**
     * A golden RTA from the peer: the next msg_id, and its one rma_iov naming {@code length} bytes of the region.
     */
    private ByteBuffer golden(String name, long length) {
        final ByteBuffer packet = ByteBuffer.wrap(GoldenPacket.named(name).bytes());
        new RtaFlyweight().wrap(packet, 0).msgId(msgId++);
        new RmaIovFlyweight().wrap(packet, RtaFlyweight.RMA_IOV_OFFSET).addr(region.address()).len(length)
                .key(Integer.toUnsignedLong(region.key()));
        return packet;
    }

    /** The golden ATOMRSP (recv_id 0x31323334, d0..d7) with this endpoint's connid. */
    private static ByteBuffer goldenAtomRsp(int connid) {
        final ByteBuffer packet = ByteBuffer.wrap(GoldenPacket.named("ATOMRSP/connid").bytes());
        new AtomRspFlyweight().wrap(packet, 0).connid(Integer.toUnsignedLong(connid));
        return packet;
    }

    /** The golden ATOMRSP from the peer, answering {@code recvId}, its seg_length set. */
    private static ByteBuffer atomRsp(int connid, long recvId, long segLength) {
        final ByteBuffer packet = goldenAtomRsp(connid);
        new AtomRspFlyweight().wrap(packet, 0).recvId(recvId).segLength(segLength);
        return packet;
    }

    private void send(ByteBuffer packet) {
        peer.postSend(toB, b.address().qpn(), b.address().connid(), packet, wrId++);
    }

    /** Runs the fabric a while, keeping what the peer receives. */
    private void run() {
        for (int i = 0; i < 200; i++) {
            pair.step();
            peer.pollCompletions(c -> {
                if (c.opcode() == Opcode.RECV) {
                    received.add(ByteBuffer.allocate(c.byteLength()).put(0, buffers[(int) c.wrId()], 0,
                            c.byteLength()));
                    peer.postRecv(buffers[(int) c.wrId()], c.wrId());
                }
            }, 16);
        }
    }

    private List<PacketType> types() {
        final List<PacketType> types = new ArrayList<>();
        for (ByteBuffer packet : received) {
            try {
                types.add(new PacketDecoder().decode(packet, 0, packet.capacity()).type());
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }
        return types;
    }

    private static List<String> hex(List<ByteBuffer> packets) {
        return packets.stream().map(AtomicTargetTest::hex).toList();
    }

    private static String hex(ByteBuffer packet) {
        return HexFormat.of().formatHex(packet.array(), 0, packet.capacity());
    }

    private void setElement(long value) {
        memory.order(ByteOrder.LITTLE_ENDIAN).putLong(CANARY, value);
    }

    private long element() {
        return memory.order(ByteOrder.LITTLE_ENDIAN).getLong(CANARY);
    }

    /** Nothing but the first element changed, nothing went wrong on the progress path, nothing is held. */
    private void assertClean() {
        for (int i = 0; i < CANARY; i++) {
            assertThat(memory.get(i)).isEqualTo(CANARY_BYTE);
            assertThat(memory.get(CANARY + 16 + i)).isEqualTo(CANARY_BYTE);
        }
        for (int i = 8; i < 16; i++) {
            assertThat(memory.get(CANARY + i)).as("byte %d of the region", i).isEqualTo(CANARY_BYTE);
        }
        assertThat(b.statistics().counter(EndpointCounter.PROGRESS_ERRORS)).isZero();
        assertThat(b.statistics().gauge(EndpointGauge.TX_ENTRIES)).isZero();
    }
}
