package org.rpcrdma4j.efa;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.rpcrdma4j.efa.device.AddressHandle;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.sim.SimDevice;
import org.rpcrdma4j.efa.wire.BaseHeaderFlyweight;
import org.rpcrdma4j.efa.wire.MediumRtmFlyweight;
import org.rpcrdma4j.efa.wire.PacketFlags;
import org.rpcrdma4j.efa.wire.PacketType;
import org.rpcrdma4j.efa.wire.ReqOptionalHeadersFlyweight;

/** Packets that cannot be processed are counted and dropped; the endpoint carries on. */
class DispatcherRobustnessTest {

    @RegisterExtension
    final SeedWatcher seed = new SeedWatcher();

    @Test
    void malformedAndUnidentifiablePacketsAreCountedAndDropped() {
        final SimPair pair = new SimPair(seed.seed());
        final SimDevice stranger = pair.fabric.createDevice(new Gid(0xfe80_0000_0000_0000L, 3), 11);
        final AddressHandle ah = stranger.createAddressHandle(pair.b.address().gid());
        final int qpn = pair.b.address().qpn();
        final int qkey = pair.b.address().connid();
        stranger.postSend(ah, qpn, qkey, ByteBuffer.wrap(new byte[] {64, 3, 0, 0, 0, 0, 0, 0}), 1);  // version 3
        // An EAGER_MSGRTM (type 64, version 4) without the raw-address header, from an unknown sender.
        stranger.postSend(ah, qpn, qkey, ByteBuffer.wrap(new byte[] {64, 4, 4, 0, 0, 0, 0, 0, 42}), 2);
        // A CTS naming no operation cannot even be attributed: the sender is unknown.
        stranger.postSend(ah, qpn, qkey, ByteBuffer.wrap(new byte[] {99, 4, 0, 0}), 3);
        pair.step();
        pair.step();

        assertThat(pair.b.statistics().counter(EndpointCounter.MALFORMED_PACKETS)).isEqualTo(2);
        assertThat(pair.b.statistics().counter(EndpointCounter.UNKNOWN_PEER_PACKETS)).isEqualTo(1);
        EagerMessagingTest.assertMessagesArriveInOrder(pair, 5);
    }

    @Test
    void aSegmentOutsideItsMessageIsMalformedAndTheNextMessageStillArrives() {
        final SimPair pair = new SimPair(seed.seed());
        final SimDevice stranger = pair.fabric.createDevice(new Gid(0xfe80_0000_0000_0000L, 3), 11);
        final AddressHandle ah = stranger.createAddressHandle(pair.b.address().gid());
        final ByteBuffer into = ByteBuffer.allocate(100);
        pair.b.recv(EfaEndpoint.ADDR_UNSPEC, into, 1);

        // seg_offset is a u64 from the wire: 2^63 lies far outside a 100-byte message.
        stranger.postSend(ah, pair.b.address().qpn(), pair.b.address().connid(),
                medium(stranger, 0, 100, 0x8000_0000_0000_0000L, 10), 1);
        stranger.postSend(ah, pair.b.address().qpn(), pair.b.address().connid(), medium(stranger, 1, 10, 0, 10), 2);
        pair.runUntil(() -> pair.doneB.size() == 1);

        assertThat(pair.b.statistics().counter(EndpointCounter.MALFORMED_PACKETS)).isEqualTo(1);
        assertThat(pair.b.statistics().counter(EndpointCounter.PROGRESS_ERRORS)).isZero();
        assertThat(pair.doneB.get(0).ok()).isTrue();
        assertThat(pair.doneB.get(0).length()).isEqualTo(10);
        assertThat(into.limit(10)).isEqualTo(SimPair.pattern(10, 1));
    }

    /** A MEDIUM_MSGRTM with the sender's raw address and {@code count} bytes of data. */
    private static ByteBuffer medium(SimDevice sender, int msgId, long msgLength, long segOffset, int count) {
        final int flags = PacketFlags.REQ_MSG_FLAG | PacketFlags.REQ_OPT_RAW_ADDR_HDR_FLAG;
        final int mandatory = MediumRtmFlyweight.MSGRTM_HEADER_LENGTH;
        final ByteBuffer packet = ByteBuffer.allocate(mandatory
                + ReqOptionalHeadersFlyweight.PROVIDER_RAW_ADDR_HEADER_LENGTH
                + count);
        new BaseHeaderFlyweight().wrap(packet, 0).type(PacketType.MEDIUM_MSGRTM.id())
                .version(BaseHeaderFlyweight.PROTOCOL_VERSION).flags(flags);
        new MediumRtmFlyweight().wrap(packet, 0).msgId(msgId).msgLength(msgLength).segOffset(segOffset);
        final ReqOptionalHeadersFlyweight optional = new ReqOptionalHeadersFlyweight().wrap(packet, mandatory, flags)
                .rawAddrLen(ReqOptionalHeadersFlyweight.PROVIDER_RAW_ADDR_LEN);
        EndpointAddress.of(sender.address()).encode(packet, optional.rawAddressOffset());
        packet.put(packet.capacity() - count, SimPair.pattern(count, msgId), 0, count);
        return packet;
    }
}
