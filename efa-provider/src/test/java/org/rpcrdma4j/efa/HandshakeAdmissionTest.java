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
import org.rpcrdma4j.efa.wire.BaseHeaderFlyweight;
import org.rpcrdma4j.efa.wire.ExtraFeature;
import org.rpcrdma4j.efa.wire.HandshakeFlyweight;
import org.rpcrdma4j.efa.wire.LongCtsRtwFlyweight;
import org.rpcrdma4j.efa.wire.PacketDecoder;
import org.rpcrdma4j.efa.wire.PacketType;
import org.rpcrdma4j.efa.wire.PeerErrorFlyweight;
import org.rpcrdma4j.efa.wire.RmaIovFlyweight;

/**
 * The handshake announces exactly what the endpoint implements, and the endpoint sends a packet type that
 * depends on a feature only to a peer whose handshake announced it: a hand-built peer, with or without
 * PEER_ERROR (feature 9) in its handshake, makes an emulated write the endpoint must refuse.
 */
class HandshakeAdmissionTest {

    private static final long SEND_ID = 0x21222324L;

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aRefusalIsReportedWithPeerErrorOnlyToAPeerThatAnnouncedIt(boolean announced) throws Exception {
        final SimPair pair = new SimPair(1);
        final EfaEndpoint b = pair.b;
        final MemoryRegion region = b.register(ByteBuffer.allocate(100_000), EnumSet.of(Access.REMOTE_WRITE));
        final SimDevice peer = pair.fabric.createDevice(new Gid(0xfe80_0000_0000_0000L, 3), 11);
        b.insert(EndpointAddress.of(peer.address()));
        final ByteBuffer[] buffers = new ByteBuffer[8];
        for (int i = 0; i < buffers.length; i++) {
            buffers[i] = ByteBuffer.allocate(8192);
            peer.postRecv(buffers[i], i);
        }
        final AddressHandle toB = peer.createAddressHandle(b.address().gid());
        final long features = announced ? ExtraFeature.PEER_ERROR.mask() : 0;

        peer.postSend(toB, b.address().qpn(), b.address().connid(), handshake(features), 1);
        pair.step();
        pair.step();
        peer.postSend(toB, b.address().qpn(), b.address().connid(), longCtsRtwWithBadKey(region), 2);
        final List<ByteBuffer> received = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            pair.step();
            peer.pollCompletions(c -> {
                if (c.opcode() == Opcode.RECV) {
                    received.add(ByteBuffer.allocate(c.byteLength()).put(0, buffers[(int) c.wrId()], 0, c.byteLength()));
                }
            }, 16);
        }

        assertThat(b.statistics().counter(EndpointCounter.RMA_ACCESS_REFUSED)).isEqualTo(1);
        assertThat(b.statistics().counter(EndpointCounter.PEER_ERRORS_SENT)).isEqualTo(announced ? 1 : 0);
        final List<Integer> types = new ArrayList<>();
        for (ByteBuffer packet : received) {
            types.add(new PacketDecoder().decode(packet, 0, packet.capacity()).type().id());
        }
        assertThat(types).containsExactlyElementsOf(announced
                ? List.of(PacketType.HANDSHAKE.id(), PacketType.PEER_ERROR.id()) : List.of(PacketType.HANDSHAKE.id()));

        final HandshakeFlyweight theirs = new HandshakeFlyweight().wrap(received.get(0), 0);
        assertThat(theirs.extraInfo(0)).as("what the endpoint implements").isEqualTo(ExtraFeature.RDMA_READ.mask()
                | ExtraFeature.DELIVERY_COMPLETE.mask() | ExtraFeature.RDMA_WRITE.mask() | ExtraFeature.READ_NACK.mask()
                | ExtraFeature.PEER_ERROR.mask() | ExtraFeature.CONNID_HEADER.mask());
        if (announced) {
            final PeerErrorFlyweight error = new PeerErrorFlyweight().wrap(received.get(1), 0);
            assertThat(error.opId()).isEqualTo(SEND_ID);
            assertThat(error.refKind()).isEqualTo(PeerErrorFlyweight.REF_OPE_INDEX);
            assertThat(error.provErrno()).isEqualTo(EfaErrorCode.REMOTE_ERROR_BAD_ADDRESS.value());
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
