package org.rpcrdma4j.efa.endpoint;

import static org.rpcrdma4j.efa.endpoint.GoldenCheck.CQ_DATA;
import static org.rpcrdma4j.efa.endpoint.GoldenCheck.MSG_LENGTH;
import static org.rpcrdma4j.efa.endpoint.GoldenCheck.MTU;
import static org.rpcrdma4j.efa.endpoint.GoldenCheck.RECV_ID;
import static org.rpcrdma4j.efa.endpoint.GoldenCheck.RMA_IOV;
import static org.rpcrdma4j.efa.endpoint.GoldenCheck.SELF;
import static org.rpcrdma4j.efa.endpoint.GoldenCheck.SEND_ID;
import static org.rpcrdma4j.efa.endpoint.GoldenCheck.assertSame;
import static org.rpcrdma4j.efa.endpoint.GoldenCheck.payload;
import static org.rpcrdma4j.efa.endpoint.GoldenCheck.peer;
import static org.rpcrdma4j.efa.endpoint.GoldenCheck.peerFor;

import java.nio.ByteBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rpcrdma4j.efa.AtomicDatatype;
import org.rpcrdma4j.efa.AtomicOp;
import org.rpcrdma4j.efa.EndpointAddress;
import org.rpcrdma4j.efa.device.Gid;
import org.rpcrdma4j.efa.device.RmaIov;
import org.rpcrdma4j.efa.wire.DecodedPacket;
import org.rpcrdma4j.efa.wire.ExtraFeature;
import org.rpcrdma4j.efa.wire.GoldenPacket;
import org.rpcrdma4j.efa.wire.PacketDecodeException;
import org.rpcrdma4j.efa.wire.PacketType;

/**
 * Every packet type emulated RMA and atomics send, as the endpoint's own builders write it, byte for byte against
 * the libfabric provider's golden packets of its type (vectors/libfabric/packets.jsonl), in each variant of
 * optional headers the endpoint produces (raw address before the handshake, connid after it when asked,
 * neither otherwise, remote CQ data on writes), and decoded back.
 */
class RmaGoldenTest {

    private final ReqHeader header = new ReqHeader(SELF);
    private final Counters counters = new Counters();
    private final PacketEntry packet = new PacketEntry(0, MTU);

    @ParameterizedTest
    @ValueSource(strings = {"EAGER_RTW/plain", "EAGER_RTW/raw_addr", "EAGER_RTW/connid", "EAGER_RTW/raw_addr+cq_data",
        "EAGER_RTW/cq_data+connid"})
    void eagerRtw(String name) throws PacketDecodeException {
        final GoldenPacket golden = GoldenPacket.named(name);
        final TxEntry tx = writeOf(golden);
        tx.data = payload(golden);
        tx.length = tx.data.capacity();

        new EagerRtw(header, null, null, counters).build(packet, tx);

        assertSame(golden, packet.buffer, packet.length);
    }

    @ParameterizedTest
    @ValueSource(strings = {"LONGCTS_RTW/plain", "LONGCTS_RTW/connid", "LONGCTS_RTW/raw_addr+cq_data",
        "LONGCTS_RTW/cq_data+connid"})
    void longCtsRtw(String name) throws PacketDecodeException {
        final GoldenPacket golden = GoldenPacket.named(name);
        final TxEntry tx = writeOf(golden);
        final ByteBuffer buffer = packet.buffer;

        final int at = new LongCtsRtw(header, null, null, null, counters, MTU).writeHeader(buffer,
                PacketType.LONGCTS_RTW, tx.peer, RMA_IOV, MSG_LENGTH, SEND_ID, 0x41424344L, tx.hasCqData, tx.cqData);
        buffer.put(at, payload(golden), 0, payload(golden).capacity());

        assertSame(golden, buffer, at + payload(golden).capacity());
    }

    @ParameterizedTest
    @ValueSource(strings = {"LONGREAD_RTW/plain", "LONGREAD_RTW/raw_addr", "LONGREAD_RTW/cq_data+connid"})
    void longReadRtw(String name) throws PacketDecodeException {
        final GoldenPacket golden = GoldenPacket.named(name);
        final TxEntry tx = writeOf(golden);
        final ByteBuffer buffer = packet.buffer;
        final LongReadRtw rtw = new LongReadRtw(header, Long.MAX_VALUE, null, null, counters);

        final int at = rtw.writeHeader(buffer, tx.peer, RMA_IOV, MSG_LENGTH, SEND_ID, 1, tx.hasCqData, tx.cqData);
        final int end = rtw.writeReadIov(buffer, at, 0x000055AA55AA0000L, MSG_LENGTH, 0xabcdef01);

        assertSame(golden, buffer, end);
    }

    @ParameterizedTest
    @ValueSource(strings = {"SHORT_RTR/plain", "SHORT_RTR/connid", "LONGCTS_RTR/plain", "LONGCTS_RTR/raw_addr",
        "LONGCTS_RTR/connid"})
    void rtr(String name) throws PacketDecodeException {
        final GoldenPacket golden = GoldenPacket.named(name);
        final Peer peer = peerFor(golden);
        final boolean isShort = golden.pktType() == PacketType.SHORT_RTR.id();
        // DISCREPANCIES.md A3: a SHORT_RTR's recv_length is its msg_length.
        final long msgLength = isShort ? 0x1234 : MSG_LENGTH;
        final long recvLength = isShort ? 0x1234 : 0x51525354L;

        final int length = new EmulatedRead(header, null, counters, MTU, 1).writeRtr(packet.buffer,
                isShort ? PacketType.SHORT_RTR : PacketType.LONGCTS_RTR, peer, RMA_IOV, msgLength, RECV_ID, recvLength);

        assertSame(golden, packet.buffer, length);
    }

    @ParameterizedTest
    @ValueSource(strings = {"READRSP/connid"})
    void readRsp(String name) throws PacketDecodeException {
        final GoldenPacket golden = GoldenPacket.named(name);
        final ByteBuffer data = payload(golden);

        // DISCREPANCIES.md A1: the requester's id at offset 8, the responder's at 12.
        new ReadResponder(null, null, SELF, counters, MTU, 1).build(packet.buffer, RECV_ID, SEND_ID, data.capacity());
        packet.buffer.put(24, data, 0, data.capacity());

        assertSame(golden, packet.buffer, 24 + data.capacity());
    }

    @ParameterizedTest
    @ValueSource(strings = {"PEER_ERROR/ref_kind=0+connid"})
    void peerError(String name) throws PacketDecodeException {
        final GoldenPacket golden = GoldenPacket.named(name);

        new PeerErrors(null, null, SELF, counters).build(packet, peer(), 0x61626364L, 0x71727374L);

        assertSame(golden, packet.buffer, packet.length);
    }

    @ParameterizedTest
    @ValueSource(strings = {"WRITE_RTA/plain", "WRITE_RTA/raw_addr", "WRITE_RTA/connid", "FETCH_RTA/plain",
        "FETCH_RTA/raw_addr", "FETCH_RTA/connid", "COMPARE_RTA/plain", "COMPARE_RTA/connid"})
    void rta(String name) throws PacketDecodeException {
        final GoldenPacket golden = GoldenPacket.named(name);
        final TxEntry op = writeOf(golden);
        op.protocol = Protocol.valueOf(name.substring(0, name.indexOf('/')));
        op.msgId = (int) GoldenPacket.integer(golden.fields().get("msg_id"));
        op.id = (int) RECV_ID;
        op.datatype = AtomicDatatype.fromValue(GoldenPacket.integer(golden.fields().get("atomic_datatype")));
        op.atomicOp = AtomicOp.fromValue(GoldenPacket.integer(golden.fields().get("atomic_op")));
        final ByteBuffer payload = payload(golden);
        // COMPARE_RTA: the operand, then as many bytes of compare data.
        op.length = op.protocol == Protocol.COMPARE_RTA ? payload.capacity() / 2 : payload.capacity();
        op.data = payload.slice(0, op.length);
        op.compare = op.protocol == Protocol.COMPARE_RTA ? payload.slice(op.length, op.length) : null;
        dirty(packet.buffer);

        new EmulatedAtomic(header, null, counters).build(packet, op);

        assertSame(golden, packet.buffer, packet.length);
    }

    @ParameterizedTest
    @ValueSource(strings = {"ATOMRSP/connid"})
    void atomRsp(String name) throws PacketDecodeException {
        final GoldenPacket golden = GoldenPacket.named(name);
        final TxEntry answer = new TxEntry();
        answer.recvId = (int) GoldenPacket.integer(golden.fields().get("recv_id"));
        answer.data = payload(golden);
        answer.length = answer.data.capacity();
        dirty(packet.buffer);

        new AtomicResponder(null, null, SELF, counters, 1).build(packet, answer);

        assertSame(golden, packet.buffer, packet.length);
    }

    /** Fills a packet buffer with what a packet sent before may have left: a field the builder skips shows. */
    private static void dirty(ByteBuffer buffer) {
        for (int i = 0; i < buffer.capacity(); i++) {
            buffer.put(i, (byte) 0xee);
        }
    }

    /** A write to the golden rma_iov, to a peer in the state the variant's optional headers need. */
    private static TxEntry writeOf(GoldenPacket golden) {
        final TxEntry tx = new TxEntry();
        tx.peer = peerFor(golden);
        tx.remote = RMA_IOV;
        tx.hasCqData = golden.name().contains("cq_data");
        tx.cqData = CQ_DATA;
        return tx;
    }
}
