package org.rpcrdma4j.efa;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.RmaIov;
import org.rpcrdma4j.efa.device.sim.SimDeviceConfig;
import org.rpcrdma4j.efa.wire.BaseHeaderFlyweight;
import org.rpcrdma4j.efa.wire.ExtraFeature;
import org.rpcrdma4j.efa.wire.HandshakeFlyweight;
import org.rpcrdma4j.efa.wire.LongCtsRtwFlyweight;
import org.rpcrdma4j.efa.wire.LongReadRtmFlyweight;
import org.rpcrdma4j.efa.wire.PacketFlags;
import org.rpcrdma4j.efa.wire.PacketType;
import org.rpcrdma4j.efa.wire.PeerErrorFlyweight;
import org.rpcrdma4j.efa.wire.RmaIovFlyweight;

/**
 * The handshake announces exactly what the endpoint implements, and the endpoint sends a packet type that
 * depends on a feature only to a peer whose handshake announced it: a hand-built peer, with or without
 * PEER_ERROR (feature 9) in its handshake, makes an emulated write the endpoint must refuse, or a long-read
 * message whose read fails; one with or without delivery complete (feature 1) is sent to by an endpoint that
 * asks for it; with or without runting read (feature 4), it gets runting-read or long-read messages.
 */
class HandshakeAdmissionTest {

    private static final long SEND_ID = 0x21222324L;

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aRefusalIsReportedWithPeerErrorOnlyToAPeerThatAnnouncedIt(boolean announced) throws Exception {
        final SimPair pair = new SimPair(1);
        final EfaEndpoint b = pair.b;
        final MemoryRegion region = b.register(ByteBuffer.allocate(100_000), EnumSet.of(Access.REMOTE_WRITE));
        final RawPeer peer = new RawPeer(pair.fabric, 3, b);
        b.insert(peer.address());
        final long features = announced ? ExtraFeature.PEER_ERROR.mask() : 0;

        peer.send(RawPeer.handshake(features));
        pair.step();
        pair.step();
        peer.send(longCtsRtwWithBadKey(region));
        run(pair, peer);

        assertThat(b.statistics().counter(EndpointCounter.RMA_ACCESS_REFUSED)).isEqualTo(1);
        assertThat(b.statistics().counter(EndpointCounter.PEER_ERRORS_SENT)).isEqualTo(announced ? 1 : 0);
        assertThat(peer.types()).containsExactlyElementsOf(announced
                ? List.of(PacketType.HANDSHAKE, PacketType.PEER_ERROR) : List.of(PacketType.HANDSHAKE));

        final HandshakeFlyweight theirs = new HandshakeFlyweight().wrap(peer.received().get(0), 0);
        assertThat(theirs.extraInfo(0)).as("what the endpoint implements").isEqualTo(ExtraFeature.RDMA_READ.mask()
                | ExtraFeature.DELIVERY_COMPLETE.mask() | ExtraFeature.RDMA_WRITE.mask() | ExtraFeature.RUNT.mask()
                | ExtraFeature.READ_NACK.mask() | ExtraFeature.PEER_ERROR.mask() | ExtraFeature.CONNID_HEADER.mask());
        if (announced) {
            assertPeerError(peer.received().get(1), EfaErrorCode.REMOTE_ERROR_BAD_ADDRESS);
        }
    }

    /**
     * A long-read message whose read_iov names memory the sender never registered: the receive ends with the
     * read's error, and the sender hears it in a PEER_ERROR only if it announced the feature; never an EOR.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aFailedReadIsReportedWithPeerErrorOnlyToAPeerThatAnnouncedIt(boolean announced) throws Exception {
        final SimPair pair = new SimPair(1);
        final RawPeer peer = new RawPeer(pair.fabric, 3, pair.b);
        pair.b.insert(peer.address());
        peer.send(RawPeer.handshake(ExtraFeature.RDMA_READ.mask() | (announced ? ExtraFeature.PEER_ERROR.mask() : 0)));
        pair.step();
        pair.step();
        pair.b.recv(EfaEndpoint.ADDR_UNSPEC, ByteBuffer.allocate(60_000), 1);

        peer.send(longReadRtmOfUnregisteredMemory());
        run(pair, peer);

        assertThat(pair.doneB).hasSize(1);
        assertThat(pair.doneB.get(0).error()).isEqualTo(EfaErrorCode.REMOTE_ERROR_BAD_ADDRESS);
        assertThat(pair.doneB.get(0).length()).isZero();
        assertThat(peer.types()).containsExactlyElementsOf(announced
                ? List.of(PacketType.HANDSHAKE, PacketType.PEER_ERROR) : List.of(PacketType.HANDSHAKE));
        if (announced) {
            assertPeerError(peer.received().get(1), EfaErrorCode.REMOTE_ERROR_BAD_ADDRESS);
        }
        assertThat(pair.b.statistics().gauge(EndpointGauge.REGISTRATIONS)).isZero();
        assertThat(pair.b.statistics().gauge(EndpointGauge.RX_ENTRIES)).isZero();
    }

    /**
     * §4.5: runting read goes only to a peer that announced it (feature 4) besides RDMA read; another gets
     * long-read. The hand-built peer never answers, so the message stays in flight.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void runtingReadGoesOnlyToAPeerThatAnnouncedIt(boolean announced) throws Exception {
        final EndpointConfig runting = EndpointConfig.DEFAULT.withMinReadMessageSize(10_000).withRuntSize(12_000);
        final SimPair pair = new SimPair(1, SimDeviceConfig.DEFAULT, SimDeviceConfig.DEFAULT, EndpointConfig.DEFAULT,
                runting);
        final RawPeer peer = new RawPeer(pair.fabric, 3, pair.b);
        final long toPeer = pair.b.insert(peer.address());
        peer.send(RawPeer.handshake(ExtraFeature.RDMA_READ.mask() | (announced ? ExtraFeature.RUNT.mask() : 0)));
        pair.step();
        pair.step();

        assertThat(pair.b.send(toPeer, SimPair.pattern(20_000, 1), 1)).isTrue();
        run(pair, peer);

        final PacketType rtm = announced ? PacketType.RUNTREAD_MSGRTM : PacketType.LONGREAD_MSGRTM;
        // 12 000 runt bytes in two packets.
        assertThat(peer.types()).containsExactlyElementsOf(announced
                ? List.of(PacketType.HANDSHAKE, rtm, rtm) : List.of(PacketType.HANDSHAKE, rtm));
    }

    private static void assertPeerError(ByteBuffer packet, EfaErrorCode error) {
        final PeerErrorFlyweight peerError = new PeerErrorFlyweight().wrap(packet, 0);
        assertThat(peerError.opId()).isEqualTo(SEND_ID);
        assertThat(peerError.refKind()).isEqualTo(PeerErrorFlyweight.REF_OPE_INDEX);
        assertThat(peerError.provErrno()).isEqualTo(error.value());
    }

    /**
     * §2.1, §4.2: an endpoint that asks for delivery complete sends its sends and writes to a peer in the DC
     * variants only if the peer's handshake announced feature 1; otherwise they fail, and no DC packet goes out.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void deliveryCompleteGoesOnlyToAPeerThatAnnouncedIt(boolean announced) throws Exception {
        final SimPair pair = new SimPair(1, SimDeviceConfig.DEFAULT, SimDeviceConfig.DEFAULT,
                EndpointConfig.DEFAULT.withDeliveryComplete(true), EndpointConfig.DEFAULT);
        final EfaEndpoint a = pair.a;
        final RawPeer peer = new RawPeer(pair.fabric, 3, a);
        final long toPeer = a.insert(peer.address());
        final MemoryRegion local = a.register(ByteBuffer.allocate(100), Set.of());

        assertThat(a.send(toPeer, ByteBuffer.allocate(100), 1)).isTrue();
        assertThat(a.write(toPeer, local, 0, new RmaIov(0x1000, 100, 5), 2)).isTrue();
        run(pair, peer);
        assertThat(pair.doneA).as("both wait for the peer's handshake").isEmpty();
        // The peer answers the endpoint's handshake trigger.
        peer.send(RawPeer.handshake(announced ? ExtraFeature.DELIVERY_COMPLETE.mask() : 0));
        run(pair, peer);

        final List<PacketType> types = peer.types();
        assertThat(types.get(0)).as("the trigger: a 0-byte EAGER_RTW").isEqualTo(PacketType.EAGER_RTW);
        if (announced) {
            assertThat(types.subList(1, types.size())).containsExactlyInAnyOrder(PacketType.HANDSHAKE,
                    PacketType.DC_EAGER_MSGRTM, PacketType.DC_EAGER_RTW);
            assertThat(pair.doneA).as("both wait for their RECEIPT").isEmpty();
        } else {
            assertThat(types.subList(1, types.size())).containsExactly(PacketType.HANDSHAKE);
            assertThat(pair.doneA).extracting(CompletionEntry::error)
                    .containsExactly(EfaErrorCode.PEER_LACKS_FEATURE, EfaErrorCode.PEER_LACKS_FEATURE);
            assertThat(a.statistics().gauge(EndpointGauge.TX_ENTRIES)).isZero();
        }
    }

    private static void run(SimPair pair, RawPeer peer) {
        for (int i = 0; i < 200; i++) {
            pair.step();
            peer.poll();
        }
    }

    /** A LONGCTS_RTW naming the region with a key one off, carrying 16 of its 50 000 bytes. */
    private static ByteBuffer longCtsRtwWithBadKey(MemoryRegion region) {
        final int at = LongCtsRtwFlyweight.HEADER_LENGTH + RmaIovFlyweight.LENGTH;
        final ByteBuffer packet = ByteBuffer.allocate(at + 16);
        new BaseHeaderFlyweight().wrap(packet, 0).type(PacketType.LONGCTS_RTW.id())
                .version(BaseHeaderFlyweight.PROTOCOL_VERSION).flags(0);
        new LongCtsRtwFlyweight().wrap(packet, 0).rmaIovCount(1).msgLength(50_000).sendId(SEND_ID).creditRequest(1);
        new RmaIovFlyweight().wrap(packet, LongCtsRtwFlyweight.RMA_IOV_OFFSET).addr(region.address()).len(50_000)
                .key(Integer.toUnsignedLong(region.key() + 1));
        return packet;
    }

    /** A LONGREAD_MSGRTM of 50 000 bytes whose read_iov names memory the sender never registered. */
    private static ByteBuffer longReadRtmOfUnregisteredMemory() {
        final int at = LongReadRtmFlyweight.MSGRTM_HEADER_LENGTH;
        final ByteBuffer packet = ByteBuffer.allocate(at + RmaIovFlyweight.LENGTH);
        new BaseHeaderFlyweight().wrap(packet, 0).type(PacketType.LONGREAD_MSGRTM.id())
                .version(BaseHeaderFlyweight.PROTOCOL_VERSION).flags(PacketFlags.REQ_MSG_FLAG);
        new LongReadRtmFlyweight().wrap(packet, 0).msgId(0).msgLength(50_000).sendId(SEND_ID).readIovCount(1);
        new RmaIovFlyweight().wrap(packet, at).addr(0x10000).len(50_000).key(77);
        return packet;
    }
}
