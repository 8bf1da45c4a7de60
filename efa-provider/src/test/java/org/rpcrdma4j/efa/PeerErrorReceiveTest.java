package org.rpcrdma4j.efa;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.efa.device.AddressHandle;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.sim.SimDevice;
import org.rpcrdma4j.efa.wire.BaseHeaderFlyweight;
import org.rpcrdma4j.efa.wire.EagerRtmFlyweight;
import org.rpcrdma4j.efa.wire.MediumRtmFlyweight;
import org.rpcrdma4j.efa.wire.PacketFlags;
import org.rpcrdma4j.efa.wire.PacketType;
import org.rpcrdma4j.efa.wire.PeerErrorFlyweight;

/**
 * A PEER_ERROR from a libfabric peer (DISCREPANCIES.md B7), one rule per kind: MSG_ID_SKIP takes the turn of
 * a message its sender aborted, MSG_ID ends the receive that took an aborted medium message's first bytes,
 * and one that names nothing of ours is counted and dropped. A hand-built peer sends them.
 */
class PeerErrorReceiveTest {

    private final SimPair pair = new SimPair(1);
    private final SimDevice peer = pair.fabric.createDevice(new Gid(0xfe80_0000_0000_0000L, 3), 11);
    private final AddressHandle toB = peer.createAddressHandle(pair.b.address().gid());
    private final long peerAtB = pair.b.insert(EndpointAddress.of(peer.address()));

    @Test
    void aSkippedMsgIdLetsTheMessagesAfterItThrough() {
        final ByteBuffer into = ByteBuffer.allocate(16);
        pair.b.recv(peerAtB, into, 1);
        send(eager(1, new byte[] {7, 8, 9}));
        run();
        assertThat(pair.doneB).as("msg_id 1 waits for msg_id 0").isEmpty();

        send(peerError(PeerErrorFlyweight.REF_MSG_ID_SKIP, 0));
        run();

        assertThat(pair.doneB).singleElement().satisfies(done -> {
            assertThat(done.ok()).isTrue();
            assertThat(done.length()).isEqualTo(3);
        });
        assertThat(into.get(0)).isEqualTo((byte) 7);
        assertThat(pair.b.statistics().counter(EndpointCounter.PEER_ERRORS_RECEIVED)).isEqualTo(1);
    }

    @Test
    void anAbortedMediumMessageEndsItsReceiveCanceled() {
        pair.b.recv(peerAtB, ByteBuffer.allocate(20_000), 1);
        send(mediumFirstSegment(0, 20_000, 1000));
        run();
        assertThat(pair.doneB).isEmpty();

        send(peerError(PeerErrorFlyweight.REF_MSG_ID, 0));
        run();

        assertThat(pair.doneB).singleElement().extracting(CompletionEntry::error).isEqualTo(EfaErrorCode.CANCELED);
        assertThat(pair.b.statistics().gauge(EndpointGauge.RX_ENTRIES)).isZero();
    }

    @Test
    void aPeerErrorNamingNothingOfOursIsCountedAndDropped() {
        send(peerError(PeerErrorFlyweight.REF_OPE_INDEX, 5));
        send(peerError(PeerErrorFlyweight.REF_MSG_ID, 5));
        run();

        assertThat(pair.b.statistics().counter(EndpointCounter.ORPHAN_PACKETS)).isEqualTo(2);
        assertThat(pair.b.statistics().counter(EndpointCounter.PEER_ERRORS_RECEIVED)).isZero();
        assertThat(pair.b.statistics().counter(EndpointCounter.PROGRESS_ERRORS)).isZero();
    }

    private void send(ByteBuffer packet) {
        peer.postSend(toB, pair.b.address().qpn(), pair.b.address().connid(), packet, 0);
    }

    private void run() {
        for (int i = 0; i < 100; i++) {
            pair.step();
            peer.pollCompletions(c -> { }, 16);
        }
    }

    private static ByteBuffer eager(int msgId, byte[] data) {
        final ByteBuffer packet = ByteBuffer.allocate(EagerRtmFlyweight.MSGRTM_HEADER_LENGTH + data.length);
        base(packet, PacketType.EAGER_MSGRTM, PacketFlags.REQ_MSG_FLAG);
        new EagerRtmFlyweight().wrap(packet, 0).msgId(msgId);
        packet.put(EagerRtmFlyweight.MSGRTM_HEADER_LENGTH, data);
        return packet;
    }

    private static ByteBuffer mediumFirstSegment(int msgId, long msgLength, int segment) {
        final ByteBuffer packet = ByteBuffer.allocate(MediumRtmFlyweight.MSGRTM_HEADER_LENGTH + segment);
        base(packet, PacketType.MEDIUM_MSGRTM, PacketFlags.REQ_MSG_FLAG);
        new MediumRtmFlyweight().wrap(packet, 0).msgId(msgId).msgLength(msgLength).segOffset(0);
        return packet;
    }

    private static ByteBuffer peerError(int refKind, long opId) {
        final ByteBuffer packet = ByteBuffer.allocate(PeerErrorFlyweight.HEADER_LENGTH);
        base(packet, PacketType.PEER_ERROR, 0);
        new PeerErrorFlyweight().wrap(packet, 0).opId(opId).refKind(refKind).provErrno(7);
        return packet;
    }

    private static void base(ByteBuffer packet, PacketType type, int flags) {
        new BaseHeaderFlyweight().wrap(packet, 0).type(type.id()).version(BaseHeaderFlyweight.PROTOCOL_VERSION)
                .flags(flags);
    }
}
