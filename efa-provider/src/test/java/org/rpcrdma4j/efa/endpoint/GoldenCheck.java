package org.rpcrdma4j.efa.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import org.rpcrdma4j.efa.EndpointAddress;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.RmaIov;
import org.rpcrdma4j.efa.wire.DecodedPacket;
import org.rpcrdma4j.efa.wire.ExtraFeature;
import org.rpcrdma4j.efa.wire.GoldenPacket;
import org.rpcrdma4j.efa.wire.PacketDecodeException;
import org.rpcrdma4j.efa.wire.PacketDecoder;

/**
 * What the tests that hold the endpoint's own packet builders against the provider's golden packets
 * (vectors/libfabric/packets.jsonl) share: the golden values, a peer in the state a variant's optional
 * headers need, and the check that the bytes are the provider's and decode back.
 */
final class GoldenCheck {

    /** The golden raw address: fe80::a1b:2cff:fe3d:4e5f, QPN 0x1234, connid 0xAABBCCDD. */
    static final EndpointAddress SELF =
            new EndpointAddress(new Gid(0xfe80_0000_0000_0000L, 0x0a1b_2cff_fe3d_4e5fL), 0x1234, 0xaabbccdd);
    static final RmaIov RMA_IOV = new RmaIov(0x00007F1122334400L, 0x12340, 0xdeadbeef);
    static final long MSG_LENGTH = 0x7766554433221100L;
    static final long SEND_ID = 0x21222324L;
    static final long RECV_ID = 0x31323334L;
    static final long CQ_DATA = 0xC0C1C2C3C4C5C6C7L;
    static final int MSG_ID = 0x11223344;
    static final long TAG = 0x0102030405060708L;
    static final long SEG_OFFSET = 0x0012345678ABCDEFL;
    static final long CREDIT_REQUEST = 0x41424344L;
    static final int MTU = 512;

    private GoldenCheck() {
    }

    /** Raw address before the handshake; after it, the connid header if the peer asked for it (§2.2, §4.4). */
    static Peer peerFor(GoldenPacket golden) {
        final Peer peer = peer();
        peer.handshakeReceived = !golden.name().contains("raw_addr");
        peer.extraInfo = golden.name().contains("connid") ? ExtraFeature.CONNID_HEADER.mask() : 0;
        return peer;
    }

    static Peer peer() {
        return new Peer(0, new EndpointAddress(new Gid(1, 2), 3, 4), null, new ReorderWindow(16, 0),
                new Backoff(1, 2, 4, new Random(0)), 0);
    }

    static boolean hasCqData(GoldenPacket golden) {
        return golden.name().contains("cq_data");
    }

    static ByteBuffer payload(GoldenPacket golden) {
        return ByteBuffer.wrap(HexFormat.of().parseHex((String) golden.fields().getOrDefault("payload", "")));
    }

    /** The bytes are the provider's, and they decode back to the golden type and header length. */
    static void assertSame(GoldenPacket golden, ByteBuffer buffer, int length) throws PacketDecodeException {
        assertThat(HexFormat.of().formatHex(Arrays.copyOf(buffer.array(), length)))
                .isEqualTo(HexFormat.of().formatHex(golden.bytes()));
        final DecodedPacket decoded = new PacketDecoder().decode(buffer, 0, length);
        assertThat(decoded.type().id()).isEqualTo(golden.pktType());
        assertThat(decoded.headerLength()).isEqualTo(golden.hdrLen());
        assertThat(decoded.payloadLength()).isEqualTo(payload(golden).capacity());
        assertThat(decoded.flags()).isEqualTo(golden.flags());
    }
}
