package org.rpcrdma4j.efa;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.AddressHandle;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.Opcode;
import org.rpcrdma4j.efa.device.sim.SimDevice;
import org.rpcrdma4j.efa.wire.BaseHeaderFlyweight;
import org.rpcrdma4j.efa.wire.EorFlyweight;
import org.rpcrdma4j.efa.wire.PacketFlags;
import org.rpcrdma4j.efa.wire.PacketType;
import org.rpcrdma4j.efa.wire.PeerErrorFlyweight;
import org.rpcrdma4j.efa.wire.RmaIovFlyweight;
import org.rpcrdma4j.efa.wire.RuntReadRtmFlyweight;

/**
 * Runting-read messages (EFA RDM protocol v4 §4.5) as a libfabric sender makes them, from a hand-built peer:
 * runt packets in any order, the rest read from the sender's registration and answered with an EOR naming its
 * send_id; a message that fits its runt is not read. A runt packet that breaks a rule is counted as malformed and
 * holds nothing, and a sender's MSG_ID abort ends the receive.
 */
class RuntReadReceiveTest {

    private static final long SEND_ID = 0x21222324L;
    private static final int LENGTH = 30_000;

    private final SimPair pair = new SimPair(1);
    private final SimDevice peer = pair.fabric.createDevice(new Gid(0xfe80_0000_0000_0000L, 3), 11);
    private final AddressHandle toB = peer.createAddressHandle(pair.b.address().gid());
    private final long peerAtB = pair.b.insert(EndpointAddress.of(peer.address()));
    private final ByteBuffer message = SimPair.pattern(LENGTH, 1);
    private final MemoryRegion source = peer.registerMemory(message, EnumSet.of(Access.REMOTE_READ));
    private final List<ByteBuffer> received = new ArrayList<>();
    private final ByteBuffer[] buffers = new ByteBuffer[8];

    RuntReadReceiveTest() {
        for (int i = 0; i < buffers.length; i++) {
            buffers[i] = ByteBuffer.allocate(8192);
            peer.postRecv(buffers[i], i);
        }
    }

    @Test
    void runtPacketsInAnyOrderAndTheRestReadAreAnsweredWithAnEor() {
        final ByteBuffer into = ByteBuffer.allocate(LENGTH);
        pair.b.recv(peerAtB, into, 1);
        // 12 000 runt bytes in three packets, the last first.
        send(runt(0, LENGTH, 12_000, 8_000, 4_000));
        send(runt(0, LENGTH, 12_000, 0, 4_000));
        send(runt(0, LENGTH, 12_000, 4_000, 4_000));
        run();

        assertThat(pair.doneB).singleElement().satisfies(done -> {
            assertThat(done.ok()).isTrue();
            assertThat(done.length()).isEqualTo(LENGTH);
        });
        assertThat(into.rewind()).isEqualTo(message.rewind());
        assertThat(received).hasSize(2);
        assertThat(type(received.get(0))).isEqualTo(PacketType.HANDSHAKE.id());
        assertThat(type(received.get(1))).isEqualTo(PacketType.EOR.id());
        assertThat(new EorFlyweight().wrap(received.get(1), 0).sendId()).isEqualTo(SEND_ID);
        assertThat(pair.b.statistics().counter(EndpointCounter.RUNT_READ_MESSAGES_RECEIVED)).isEqualTo(1);
        assertThat(pair.b.statistics().gauge(EndpointGauge.REGISTRATIONS)).isZero();
    }

    @Test
    void aMessageThatFitsItsRuntIsNotReadAndGetsNoEor() {
        final ByteBuffer into = ByteBuffer.allocate(LENGTH);
        pair.b.recv(peerAtB, into, 1);
        send(runt(0, 8_000, 8_000, 4_000, 4_000));
        send(runt(0, 8_000, 8_000, 0, 4_000));
        run();

        assertThat(pair.doneB).singleElement().satisfies(done -> {
            assertThat(done.ok()).isTrue();
            assertThat(done.length()).isEqualTo(8_000);
        });
        assertThat(into.slice(0, 8_000)).isEqualTo(message.slice(0, 8_000));
        assertThat(received).extracting(RuntReadReceiveTest::type).containsExactly(PacketType.HANDSHAKE.id());
    }

    @Test
    void aRuntPacketThatBreaksARuleIsCountedAndHoldsNothing() {
        // Each takes its msg_id's turn, as any RTM that is dropped.
        send(runt(0, LENGTH, 0, 0, 4_000));
        send(runt(1, LENGTH, LENGTH + 8, 0, 4_000));
        send(runt(2, LENGTH, 12_000, 10_000, 4_000));
        send(withReadIovLength(runt(3, LENGTH, 12_000, 0, 4_000), LENGTH - 1));
        run();
        assertThat(pair.b.statistics().counter(EndpointCounter.MALFORMED_PACKETS)).isEqualTo(4);
        assertThat(pair.b.statistics().gauge(EndpointGauge.UNEXPECTED_MESSAGES)).isZero();
        assertThat(pair.b.statistics().gauge(EndpointGauge.RX_ENTRIES)).isZero();

        // A later packet that disagrees with the first about the runt is dropped; the others complete the runt.
        final ByteBuffer into = ByteBuffer.allocate(LENGTH);
        pair.b.recv(peerAtB, into, 1);
        send(runt(4, LENGTH, 12_000, 0, 4_000));
        send(runt(4, LENGTH, 16_000, 4_000, 4_000));
        send(runt(4, LENGTH, 12_000, 4_000, 4_000));
        send(runt(4, LENGTH, 12_000, 8_000, 4_000));
        run();

        assertThat(pair.b.statistics().counter(EndpointCounter.MALFORMED_PACKETS)).isEqualTo(5);
        assertThat(pair.doneB).singleElement().satisfies(done -> assertThat(done.ok()).isTrue());
        assertThat(into.rewind()).isEqualTo(message.rewind());
        assertThat(pair.b.statistics().counter(EndpointCounter.PROGRESS_ERRORS)).isZero();
    }

    @Test
    void aSendersAbortEndsTheReceiveCanceled() {
        pair.b.recv(peerAtB, ByteBuffer.allocate(LENGTH), 1);
        send(runt(0, LENGTH, 12_000, 0, 4_000));
        send(peerError(0));
        run();

        assertThat(pair.doneB).singleElement().extracting(CompletionEntry::error).isEqualTo(EfaErrorCode.CANCELED);
        assertThat(pair.b.statistics().counter(EndpointCounter.PEER_ERRORS_RECEIVED)).isEqualTo(1);
        assertThat(pair.b.statistics().gauge(EndpointGauge.RX_ENTRIES)).isZero();
        assertThat(pair.b.statistics().gauge(EndpointGauge.REGISTRATIONS)).isZero();
        assertThat(received).extracting(RuntReadReceiveTest::type).as("no EOR to an aborted message")
                .containsExactly(PacketType.HANDSHAKE.id());
    }

    private void send(ByteBuffer packet) {
        peer.postSend(toB, pair.b.address().qpn(), pair.b.address().connid(), packet, 0);
    }

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

    private static int type(ByteBuffer packet) {
        return new BaseHeaderFlyweight().wrap(packet, 0).type();
    }

    /** A RUNTREAD_MSGRTM carrying {@code count} bytes of the message from {@code offset}, its read_iov the whole source. */
    private ByteBuffer runt(int msgId, long msgLength, long runtLength, int offset, int count) {
        final int at = RuntReadRtmFlyweight.MSGRTM_HEADER_LENGTH;
        final ByteBuffer packet = ByteBuffer.allocate(at + RmaIovFlyweight.LENGTH + count);
        new BaseHeaderFlyweight().wrap(packet, 0).type(PacketType.RUNTREAD_MSGRTM.id())
                .version(BaseHeaderFlyweight.PROTOCOL_VERSION).flags(PacketFlags.REQ_MSG_FLAG);
        new RuntReadRtmFlyweight().wrap(packet, 0).msgId(msgId).msgLength(msgLength).sendId(SEND_ID).readIovCount(1)
                .segOffset(offset).runtLength(runtLength);
        new RmaIovFlyweight().wrap(packet, at).addr(source.address()).len(msgLength)
                .key(Integer.toUnsignedLong(source.key()));
        packet.put(at + RmaIovFlyweight.LENGTH, message, offset, count);
        return packet;
    }

    private static ByteBuffer withReadIovLength(ByteBuffer packet, long length) {
        new RmaIovFlyweight().wrap(packet, RuntReadRtmFlyweight.MSGRTM_HEADER_LENGTH).len(length);
        return packet;
    }

    private static ByteBuffer peerError(long msgId) {
        final ByteBuffer packet = ByteBuffer.allocate(PeerErrorFlyweight.HEADER_LENGTH);
        new BaseHeaderFlyweight().wrap(packet, 0).type(PacketType.PEER_ERROR.id())
                .version(BaseHeaderFlyweight.PROTOCOL_VERSION).flags(0);
        new PeerErrorFlyweight().wrap(packet, 0).opId(msgId).refKind(PeerErrorFlyweight.REF_MSG_ID).provErrno(7);
        return packet;
    }
}
