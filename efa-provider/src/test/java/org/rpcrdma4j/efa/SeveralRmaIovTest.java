package org.rpcrdma4j.efa;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.wire.BaseHeaderFlyweight;
import org.rpcrdma4j.efa.wire.EagerRtwFlyweight;
import org.rpcrdma4j.efa.wire.ExtraFeature;
import org.rpcrdma4j.efa.wire.LongCtsRtwFlyweight;
import org.rpcrdma4j.efa.wire.PacketType;
import org.rpcrdma4j.efa.wire.PeerErrorFlyweight;
import org.rpcrdma4j.efa.wire.RmaIovFlyweight;
import org.rpcrdma4j.efa.wire.RtrFlyweight;

/**
 * A request with two {@code rma_iov} entries, each naming good bytes of a registration: libfabric's RDM endpoint
 * advertises {@code rma_iov_limit} 1, so its applications send one, and the endpoint serves exactly one. Such a
 * request is refused as a bad key is, touching nothing, and where it names the initiator's operation the peer
 * hears it in a PEER_ERROR.
 */
class SeveralRmaIovTest {

    private static final long OP_ID = 0x31323334L;
    private static final int HALF = 2048;
    private static final byte UNTOUCHED = 0x5a;

    /** The requests that carry rma_iov entries, and whether each names its initiator's operation. */
    enum Request {
        EAGER_RTW(false), LONGCTS_RTW(true), SHORT_RTR(true), LONGCTS_RTR(true);

        final boolean namesOperation;

        Request(boolean namesOperation) {
            this.namesOperation = namesOperation;
        }
    }

    @ParameterizedTest
    @EnumSource(Request.class)
    void isRefusedAndTouchesNothing(Request request) throws Exception {
        final SimPair pair = new SimPair(1);
        final ByteBuffer memory = ByteBuffer.allocate(2 * HALF);
        for (int i = 0; i < memory.capacity(); i++) {
            memory.put(i, UNTOUCHED);
        }
        final MemoryRegion region = pair.b.register(memory,
                EnumSet.of(Access.REMOTE_READ, Access.REMOTE_WRITE));
        final RawPeer peer = new RawPeer(pair.fabric, 3, pair.b);
        pair.b.insert(peer.address());
        peer.send(RawPeer.handshake(ExtraFeature.PEER_ERROR.mask()));
        pair.step();
        pair.step();

        peer.send(twoEntries(request, region));
        for (int i = 0; i < 200; i++) {
            pair.step();
            peer.poll();
        }

        assertThat(pair.b.statistics().counter(EndpointCounter.RMA_ACCESS_REFUSED)).isEqualTo(1);
        for (int i = 0; i < memory.capacity(); i++) {
            assertThat(memory.get(i)).as("byte %d", i).isEqualTo(UNTOUCHED);
        }
        final List<PacketType> answers = peer.types();
        if (request.namesOperation) {
            assertThat(answers).containsExactly(PacketType.HANDSHAKE, PacketType.PEER_ERROR);
            final PeerErrorFlyweight error = new PeerErrorFlyweight().wrap(peer.received().get(1), 0);
            assertThat(error.opId()).isEqualTo(OP_ID);
            assertThat(error.provErrno()).isEqualTo(EfaErrorCode.REMOTE_ERROR_BAD_ADDRESS.value());
        } else {
            assertThat(answers).containsExactly(PacketType.HANDSHAKE);
        }
        assertThat(pair.b.statistics().counter(EndpointCounter.PROGRESS_ERRORS)).isZero();
        assertThat(pair.b.statistics().gauge(EndpointGauge.RX_ENTRIES)).isZero();
    }

    /** The request naming the region's two halves, one entry each, with the payload a write carries. */
    private static ByteBuffer twoEntries(Request request, MemoryRegion region) {
        final PacketType type = PacketType.valueOf(request.name());
        final int iovAt = type.mandatoryHeaderLength();
        final int payload = request == Request.EAGER_RTW ? 2 * HALF : request == Request.LONGCTS_RTW ? 16 : 0;
        final ByteBuffer packet = ByteBuffer.allocate(iovAt + 2 * RmaIovFlyweight.LENGTH + payload);
        new BaseHeaderFlyweight().wrap(packet, 0).type(type.id()).version(BaseHeaderFlyweight.PROTOCOL_VERSION)
                .flags(0);
        switch (request) {
            case EAGER_RTW -> new EagerRtwFlyweight().wrap(packet, 0).rmaIovCount(2);
            case LONGCTS_RTW -> new LongCtsRtwFlyweight().wrap(packet, 0).rmaIovCount(2).msgLength(2 * HALF)
                    .sendId(OP_ID).creditRequest(1);
            case SHORT_RTR, LONGCTS_RTR -> new RtrFlyweight().wrap(packet, 0).rmaIovCount(2).msgLength(2 * HALF)
                    .recvId(OP_ID).recvLength(2 * HALF);
        }
        for (int entry = 0; entry < 2; entry++) {
            new RmaIovFlyweight().wrap(packet, iovAt + entry * RmaIovFlyweight.LENGTH)
                    .addr(region.address() + (long) entry * HALF).len(HALF)
                    .key(Integer.toUnsignedLong(region.key()));
        }
        return packet;
    }
}
