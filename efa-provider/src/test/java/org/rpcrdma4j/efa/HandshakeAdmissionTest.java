package org.rpcrdma4j.efa;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.AddressHandle;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.Opcode;
import org.rpcrdma4j.efa.device.sim.SimDevice;
import org.rpcrdma4j.efa.device.sim.SimDeviceConfig;
import org.rpcrdma4j.efa.wire.BaseHeaderFlyweight;
import org.rpcrdma4j.efa.wire.ExtraFeature;
import org.rpcrdma4j.efa.wire.HandshakeFlyweight;
import org.rpcrdma4j.efa.wire.LongCtsRtwFlyweight;
import org.rpcrdma4j.efa.wire.LongReadRtmFlyweight;
import org.rpcrdma4j.efa.wire.PacketDecodeException;
import org.rpcrdma4j.efa.wire.PacketDecoder;
import org.rpcrdma4j.efa.wire.PacketFlags;
import org.rpcrdma4j.efa.wire.PacketType;
import org.rpcrdma4j.efa.wire.PeerErrorFlyweight;
import org.rpcrdma4j.efa.wire.RmaIovFlyweight;

/**
 * The handshake announces exactly what the endpoint implements, and the endpoint sends a packet type that
 * depends on a feature only to a peer whose handshake announced it: a hand-built peer, with or without
 * PEER_ERROR (feature 9) in its handshake, makes an emulated write the endpoint must refuse, or a long-read
 * message whose read fails; with or without runting read (feature 4), it gets runting-read or long-read
 * messages.
 */
class HandshakeAdmissionTest {

    private static final long SEND_ID = 0x21222324L;

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aRefusalIsReportedWithPeerErrorOnlyToAPeerThatAnnouncedIt(boolean announced) throws Exception {
        final SimPair pair = new SimPair(1);
        final MemoryRegion region = pair.b.register(ByteBuffer.allocate(100_000), EnumSet.of(Access.REMOTE_WRITE));
        final HandBuiltPeer peer = new HandBuiltPeer(pair, announced ? ExtraFeature.PEER_ERROR.mask() : 0);

        peer.send(longCtsRtwWithBadKey(region));
        final List<ByteBuffer> received = peer.run();

        assertThat(pair.b.statistics().counter(EndpointCounter.RMA_ACCESS_REFUSED)).isEqualTo(1);
        assertThat(pair.b.statistics().counter(EndpointCounter.PEER_ERRORS_SENT)).isEqualTo(announced ? 1 : 0);
        assertThat(types(received)).containsExactlyElementsOf(announced
                ? List.of(PacketType.HANDSHAKE.id(), PacketType.PEER_ERROR.id()) : List.of(PacketType.HANDSHAKE.id()));

        final HandshakeFlyweight theirs = new HandshakeFlyweight().wrap(received.get(0), 0);
        assertThat(theirs.extraInfo(0)).as("what the endpoint implements").isEqualTo(ExtraFeature.RDMA_READ.mask()
                | ExtraFeature.RDMA_WRITE.mask() | ExtraFeature.RUNT.mask() | ExtraFeature.READ_NACK.mask()
                | ExtraFeature.PEER_ERROR.mask()
                | ExtraFeature.CONNID_HEADER.mask());
        if (announced) {
            assertPeerError(received.get(1), EfaErrorCode.REMOTE_ERROR_BAD_ADDRESS);
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
        final HandBuiltPeer peer = new HandBuiltPeer(pair,
                ExtraFeature.RDMA_READ.mask() | (announced ? ExtraFeature.PEER_ERROR.mask() : 0));
        pair.b.recv(EfaEndpoint.ADDR_UNSPEC, ByteBuffer.allocate(60_000), 1);

        peer.send(longReadRtmOfUnregisteredMemory());
        final List<ByteBuffer> received = peer.run();

        assertThat(pair.doneB).hasSize(1);
        assertThat(pair.doneB.get(0).error()).isEqualTo(EfaErrorCode.REMOTE_ERROR_BAD_ADDRESS);
        assertThat(pair.doneB.get(0).length()).isZero();
        assertThat(types(received)).containsExactlyElementsOf(announced
                ? List.of(PacketType.HANDSHAKE.id(), PacketType.PEER_ERROR.id()) : List.of(PacketType.HANDSHAKE.id()));
        if (announced) {
            assertPeerError(received.get(1), EfaErrorCode.REMOTE_ERROR_BAD_ADDRESS);
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
        final HandBuiltPeer peer = new HandBuiltPeer(pair,
                ExtraFeature.RDMA_READ.mask() | (announced ? ExtraFeature.RUNT.mask() : 0));

        assertThat(pair.b.send(peer.handle, SimPair.pattern(20_000, 1), 1)).isTrue();
        final List<ByteBuffer> received = peer.run();

        final int rtm = (announced ? PacketType.RUNTREAD_MSGRTM : PacketType.LONGREAD_MSGRTM).id();
        // 12 000 runt bytes in two packets.
        assertThat(types(received)).containsExactlyElementsOf(announced
                ? List.of(PacketType.HANDSHAKE.id(), rtm, rtm) : List.of(PacketType.HANDSHAKE.id(), rtm));
    }

    private static void assertPeerError(ByteBuffer packet, EfaErrorCode error) {
        final PeerErrorFlyweight peerError = new PeerErrorFlyweight().wrap(packet, 0);
        assertThat(peerError.opId()).isEqualTo(SEND_ID);
        assertThat(peerError.refKind()).isEqualTo(PeerErrorFlyweight.REF_OPE_INDEX);
        assertThat(peerError.provErrno()).isEqualTo(error.value());
    }

    private static List<Integer> types(List<ByteBuffer> packets) throws PacketDecodeException {
        final List<Integer> types = new ArrayList<>();
        for (ByteBuffer packet : packets) {
            types.add(new PacketDecoder().decode(packet, 0, packet.capacity()).type().id());
        }
        return types;
    }

    /** A simulated device driven by hand, B's peer: it announces {@code features} and sends what a test builds. */
    private static final class HandBuiltPeer {

        private final SimPair pair;
        private final SimDevice device;
        /** B's handle for it. */
        private final long handle;
        private final AddressHandle toB;
        private final ByteBuffer[] buffers = new ByteBuffer[8];

        HandBuiltPeer(SimPair pair, long features) {
            this.pair = pair;
            device = pair.fabric.createDevice(new Gid(0xfe80_0000_0000_0000L, 3), 11);
            handle = pair.b.insert(EndpointAddress.of(device.address()));
            for (int i = 0; i < buffers.length; i++) {
                buffers[i] = ByteBuffer.allocate(8192);
                device.postRecv(buffers[i], i);
            }
            toB = device.createAddressHandle(pair.b.address().gid());
            send(handshake(features));
            pair.step();
            pair.step();
        }

        void send(ByteBuffer packet) {
            device.postSend(toB, pair.b.address().qpn(), pair.b.address().connid(), packet, 1);
        }

        /** @return the packets B sent it in 200 steps */
        List<ByteBuffer> run() {
            final List<ByteBuffer> received = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                pair.step();
                device.pollCompletions(c -> {
                    if (c.opcode() == Opcode.RECV) {
                        received.add(ByteBuffer.allocate(c.byteLength()).put(0, buffers[(int) c.wrId()], 0,
                                c.byteLength()));
                    }
                }, 16);
            }
            return received;
        }
    }

    private static ByteBuffer handshake(long features) {
        final ByteBuffer packet = ByteBuffer.allocate(HandshakeFlyweight.EXTRA_INFO_OFFSET
                + HandshakeFlyweight.EXTRA_INFO_WORD_LENGTH);
        new BaseHeaderFlyweight().wrap(packet, 0).type(PacketType.HANDSHAKE.id())
                .version(BaseHeaderFlyweight.PROTOCOL_VERSION).flags(0);
        new HandshakeFlyweight().wrap(packet, 0).nextraP3(HandshakeFlyweight.MIN_NEXTRA_P3 + 1).extraInfo(0, features);
        return packet;
    }

    /** A LONGREAD_MSGRTM of 50 000 bytes whose one read_iov entry names nothing registered. */
    private static ByteBuffer longReadRtmOfUnregisteredMemory() {
        final int at = LongReadRtmFlyweight.MSGRTM_HEADER_LENGTH;
        final ByteBuffer packet = ByteBuffer.allocate(at + RmaIovFlyweight.LENGTH);
        new BaseHeaderFlyweight().wrap(packet, 0).type(PacketType.LONGREAD_MSGRTM.id())
                .version(BaseHeaderFlyweight.PROTOCOL_VERSION).flags(PacketFlags.REQ_MSG_FLAG);
        new LongReadRtmFlyweight().wrap(packet, 0).msgId(0).msgLength(50_000).sendId(SEND_ID).readIovCount(1);
        new RmaIovFlyweight().wrap(packet, at).addr(0x10000).len(50_000).key(77);
        return packet;
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
}
