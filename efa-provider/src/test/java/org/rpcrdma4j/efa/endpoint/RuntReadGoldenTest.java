package org.rpcrdma4j.efa.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rpcrdma4j.efa.EndpointAddress;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.wire.DecodedPacket;
import org.rpcrdma4j.efa.wire.ExtraFeature;
import org.rpcrdma4j.efa.wire.GoldenPacket;
import org.rpcrdma4j.efa.wire.PacketDecodeException;
import org.rpcrdma4j.efa.wire.PacketDecoder;
import org.rpcrdma4j.efa.wire.PacketType;
import org.rpcrdma4j.efa.wire.RmaIovFlyweight;
import org.rpcrdma4j.efa.wire.RuntReadRtmFlyweight;

/**
 * The RUNTREAD_MSGRTM and RUNTREAD_TAGRTM packets the endpoint sends (EFA RDM protocol v4 §4.5), as its builder
 * writes them, byte for byte against the libfabric provider's golden packets (vectors/libfabric/packets.jsonl) in
 * every variant of optional headers, and decoded back; and a whole runt cut into packets that decode to the
 * message's first bytes.
 */
class RuntReadGoldenTest {

    /** The golden raw address: fe80::a1b:2cff:fe3d:4e5f, QPN 0x1234, connid 0xAABBCCDD. */
    private static final EndpointAddress SELF =
            new EndpointAddress(new Gid(0xfe80_0000_0000_0000L, 0x0a1b_2cff_fe3d_4e5fL), 0x1234, 0xaabbccdd);
    private static final int MSG_ID = 0x11223344;
    private static final long MSG_LENGTH = 0x7766554433221100L;
    private static final long SEND_ID = 0x21222324L;
    private static final long SEG_OFFSET = 0x0012345678abcdefL;
    private static final long RUNT_LENGTH = 0x0022446688aacceeL;
    private static final long TAG = 0x0102030405060708L;
    private static final long CQ_DATA = 0xC0C1C2C3C4C5C6C7L;
    private static final long READ_ADDR = 0x000055AA55AA0000L;
    private static final int READ_KEY = 0xabcdef01;
    private static final int MTU = 512;

    private final ReqHeader header = new ReqHeader(SELF);
    private final Counters counters = new Counters();
    private final PacketEntry packet = new PacketEntry(0, MTU);

    @ParameterizedTest
    @ValueSource(strings = {"RUNTREAD_MSGRTM/plain", "RUNTREAD_MSGRTM/raw_addr", "RUNTREAD_MSGRTM/cq_data",
        "RUNTREAD_MSGRTM/raw_addr+cq_data", "RUNTREAD_TAGRTM/plain", "RUNTREAD_TAGRTM/raw_addr",
        "RUNTREAD_TAGRTM/cq_data", "RUNTREAD_TAGRTM/connid", "RUNTREAD_TAGRTM/raw_addr+cq_data"})
    void runtReadRtm(String name) throws PacketDecodeException {
        final GoldenPacket golden = GoldenPacket.named(name);
        final PacketType type = PacketType.fromId(golden.pktType());
        final boolean cqData = name.contains("cq_data");
        final ByteBuffer buffer = packet.buffer;
        final ByteBuffer payload = ByteBuffer.wrap(HexFormat.of().parseHex((String) golden.fields().get("payload")));

        final int at = runtRead().writeHeader(buffer, type, peerFor(name), cqData, CQ_DATA, MSG_ID, MSG_LENGTH,
                SEND_ID, 1, SEG_OFFSET, RUNT_LENGTH, TAG);
        final int data = LongReadSender.writeReadIov(new RmaIovFlyweight(), buffer, at, READ_ADDR, READ_KEY,
                MSG_LENGTH, Long.MAX_VALUE);
        buffer.put(data, payload, 0, payload.capacity());
        final int length = data + payload.capacity();

        assertThat(HexFormat.of().formatHex(Arrays.copyOf(buffer.array(), length)))
                .isEqualTo(HexFormat.of().formatHex(golden.bytes()));
        final DecodedPacket decoded = new PacketDecoder().decode(buffer, 0, length);
        assertThat(decoded.type()).isEqualTo(type);
        assertThat(decoded.flags()).isEqualTo(golden.flags());
        assertThat(decoded.headerLength()).isEqualTo(golden.hdrLen());
        assertThat(decoded.readIovCount()).isEqualTo(1);
        assertThat(decoded.payloadLength()).isEqualTo(payload.capacity());
        final RuntReadRtmFlyweight rtm = new RuntReadRtmFlyweight().wrap(buffer, 0);
        assertThat(rtm.msgId()).isEqualTo(MSG_ID);
        assertThat(rtm.msgLength()).isEqualTo(MSG_LENGTH);
        assertThat(rtm.sendId()).isEqualTo(SEND_ID);
        assertThat(rtm.segOffset()).isEqualTo(SEG_OFFSET);
        assertThat(rtm.runtLength()).isEqualTo(RUNT_LENGTH);
        assertThat(type.isTagged() ? rtm.tag() : TAG).isEqualTo(TAG);
    }

    /** A 5000-byte message whose first 3000 bytes go as runts: packets of the provider's sizes, each decoding back. */
    @Test
    void aRuntIsCutIntoPacketsThatDecodeToTheMessagesFirstBytes() throws PacketDecodeException {
        final TxEntry tx = new TxEntry();
        tx.peer = peerFor("connid");
        tx.id = (int) SEND_ID;
        tx.msgId = MSG_ID;
        tx.tagged = true;
        tx.tag = TAG;
        tx.data = ByteBuffer.allocate(5000);
        new Random(1).nextBytes(tx.data.array());
        tx.length = 5000;
        tx.runtLength = 3000;
        tx.protocol = Protocol.RUNT_READ;
        tx.described = new MemoryRegion(READ_KEY, READ_ADDR, 5000, Set.of(Access.REMOTE_READ));
        final RuntRead runtRead = runtRead();
        final ByteBuffer runt = ByteBuffer.allocate(3000);

        // 52 header bytes and one read_iov entry leave 436 of 512: 3000 bytes need 7 packets, of 429 rounded down
        // to 424, and the 32 left do not fit the last, so they go in an eighth.
        final int[] expected = {424, 424, 424, 424, 424, 424, 424, 32};
        for (int segment : expected) {
            runtRead.build(packet, tx);
            final DecodedPacket decoded = new PacketDecoder().decode(packet.buffer, 0, packet.length);
            final RuntReadRtmFlyweight rtm = new RuntReadRtmFlyweight().wrap(packet.buffer, 0);
            assertThat(decoded.type()).isEqualTo(PacketType.RUNTREAD_TAGRTM);
            assertThat(decoded.flags()).isEqualTo(0x800c);
            assertThat(decoded.payloadLength()).isEqualTo(segment).isEqualTo(packet.dataLength);
            assertThat(rtm.msgLength()).isEqualTo(5000);
            assertThat(rtm.runtLength()).isEqualTo(3000);
            assertThat(rtm.readIovCount()).isEqualTo(1);
            final RmaIovFlyweight iov = new RmaIovFlyweight().wrap(packet.buffer, decoded.readIovOffset(0));
            assertThat(iov.addr()).isEqualTo(READ_ADDR);
            assertThat(iov.len()).as("the read_iov describes the whole buffer").isEqualTo(5000);
            assertThat(iov.key()).isEqualTo(Integer.toUnsignedLong(READ_KEY));
            runt.put((int) rtm.segOffset(), packet.buffer, decoded.payloadOffset(), segment);
        }
        assertThat(tx.bytesBuilt).isEqualTo(3000);
        assertThat(runt.rewind()).isEqualTo(tx.data.slice(0, 3000));
        assertThat(counters.get(EndpointCounter.BYTES_COPIED)).isEqualTo(3000);
    }

    private RuntRead runtRead() {
        return new RuntRead(header, null, new LongReadSender(null, header, null, counters), null, counters, MTU,
                1L << 30);
    }

    /** Raw address before the handshake; after it, the connid header if the peer asked for it (§2.2, §4.4). */
    private static Peer peerFor(String variant) {
        final Peer peer = new Peer(0, new EndpointAddress(new Gid(1, 2), 3, 4), null, new ReorderWindow(16, 0),
                new Backoff(1, 2, 4, new Random(0)), 0);
        peer.handshakeReceived = !variant.contains("raw_addr");
        peer.extraInfo = variant.contains("connid") ? ExtraFeature.CONNID_HEADER.mask() : 0;
        return peer;
    }
}
