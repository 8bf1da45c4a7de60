package org.rpcrdma4j.efa.endpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rpcrdma4j.efa.endpoint.GoldenCheck.CQ_DATA;
import static org.rpcrdma4j.efa.endpoint.GoldenCheck.CREDIT_REQUEST;
import static org.rpcrdma4j.efa.endpoint.GoldenCheck.MSG_ID;
import static org.rpcrdma4j.efa.endpoint.GoldenCheck.MSG_LENGTH;
import static org.rpcrdma4j.efa.endpoint.GoldenCheck.MTU;
import static org.rpcrdma4j.efa.endpoint.GoldenCheck.RMA_IOV;
import static org.rpcrdma4j.efa.endpoint.GoldenCheck.SEG_OFFSET;
import static org.rpcrdma4j.efa.endpoint.GoldenCheck.SELF;
import static org.rpcrdma4j.efa.endpoint.GoldenCheck.SEND_ID;
import static org.rpcrdma4j.efa.endpoint.GoldenCheck.TAG;
import static org.rpcrdma4j.efa.endpoint.GoldenCheck.assertSame;
import static org.rpcrdma4j.efa.endpoint.GoldenCheck.hasCqData;
import static org.rpcrdma4j.efa.endpoint.GoldenCheck.payload;
import static org.rpcrdma4j.efa.endpoint.GoldenCheck.peerFor;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.rpcrdma4j.efa.AtomicDatatype;
import org.rpcrdma4j.efa.AtomicOp;
import org.rpcrdma4j.efa.CompletionEntry;
import org.rpcrdma4j.efa.wire.GoldenPacket;
import org.rpcrdma4j.efa.wire.PacketDecodeException;
import org.rpcrdma4j.efa.wire.PacketType;

/**
 * Every delivery-complete REQ the endpoint sends (EFA RDM protocol v4 §4.2) and the RECEIPT it answers one with,
 * as its own builders write them, byte for byte against each of the libfabric provider's golden packets of
 * those types (vectors/libfabric/packets.jsonl: every variant of optional headers), and decoded back.
 */
class DeliveryCompleteGoldenTest {

    /** The DC REQ types this endpoint sends. */
    private static final Set<PacketType> SENT = EnumSet.of(PacketType.DC_EAGER_MSGRTM, PacketType.DC_EAGER_TAGRTM,
            PacketType.DC_MEDIUM_MSGRTM, PacketType.DC_MEDIUM_TAGRTM, PacketType.DC_LONGCTS_MSGRTM,
            PacketType.DC_LONGCTS_TAGRTM, PacketType.DC_EAGER_RTW, PacketType.DC_LONGCTS_RTW, PacketType.DC_WRITE_RTA);

    private final ReqHeader header = new ReqHeader(SELF);
    private final Counters counters = new Counters();
    private final PacketEntry packet = new PacketEntry(0, MTU);

    static Stream<GoldenPacket> dcRequests() {
        return SENT.stream().flatMap(type -> GoldenPacket.ofType(type).stream());
    }

    @Test
    void everyDcTypeSentHasGoldenPacketsToMeet() {
        assertThat(dcRequests().map(GoldenPacket::pktType).distinct().toList())
                .containsExactlyInAnyOrderElementsOf(SENT.stream().map(PacketType::id).toList());
        assertThat(dcRequests().count()).isGreaterThanOrEqualTo(2L * SENT.size());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dcRequests")
    void dcRequestIsTheProvidersBytes(GoldenPacket golden) throws PacketDecodeException {
        final PacketType type = PacketType.fromId(golden.pktType());
        final boolean tagged = type.isTagged();
        final boolean cqData = hasCqData(golden);
        final Peer peer = peerFor(golden);
        final ByteBuffer data = payload(golden);
        final ByteBuffer buffer = packet.buffer;
        final int length = switch (type) {
            case DC_EAGER_MSGRTM, DC_EAGER_TAGRTM -> {
                final TxEntry tx = dcOp(peer, Protocol.EAGER, tagged ? CompletionEntry.Kind.TAGGED_SEND
                        : CompletionEntry.Kind.SEND, cqData, data);
                new EagerRtm(header, null, counters).build(packet, tx);
                yield packet.length;
            }
            case DC_MEDIUM_MSGRTM, DC_MEDIUM_TAGRTM -> withPayload(new MediumRtm(header, null, MTU, 0, counters)
                    .writeHeader(buffer, peer, tagged, true, MSG_ID, SEND_ID, MSG_LENGTH, SEG_OFFSET, TAG, cqData,
                            CQ_DATA), data);
            case DC_LONGCTS_MSGRTM, DC_LONGCTS_TAGRTM -> withPayload(new LongCtsSender(header, SELF, null, counters,
                    MTU, 1).writeRtmHeader(buffer, peer, tagged, true, false, MSG_ID, MSG_LENGTH, SEND_ID,
                            CREDIT_REQUEST, TAG, cqData, CQ_DATA), data);
            case DC_EAGER_RTW -> {
                final TxEntry tx = dcOp(peer, Protocol.EAGER_RTW, CompletionEntry.Kind.WRITE, cqData, data);
                tx.remote = RMA_IOV;
                new EagerRtw(header, null, null, counters).build(packet, tx);
                yield packet.length;
            }
            case DC_LONGCTS_RTW -> withPayload(new LongCtsRtw(header, null, null, null, counters, MTU)
                    .writeHeader(buffer, LongCtsRtw.type(true), peer, RMA_IOV, MSG_LENGTH, SEND_ID, CREDIT_REQUEST,
                            cqData, CQ_DATA), data);
            case DC_WRITE_RTA -> {
                final TxEntry tx = dcOp(peer, Protocol.WRITE_RTA, CompletionEntry.Kind.ATOMIC, cqData, data);
                tx.remote = RMA_IOV;
                tx.datatype = AtomicDatatype.fromValue(GoldenPacket.integer(golden.fields().get("atomic_datatype")));
                tx.atomicOp = AtomicOp.fromValue(GoldenPacket.integer(golden.fields().get("atomic_op")));
                dirty(buffer);
                new EmulatedAtomic(header, null, counters).build(packet, tx);
                yield packet.length;
            }
            default -> throw new AssertionError(type + " is not sent");
        };

        assertSame(golden, buffer, length);
    }

    @Test
    void receiptIsTheProvidersBytes() throws PacketDecodeException {
        // The provider always sends its connid in a RECEIPT; so does this endpoint.
        final GoldenPacket golden = GoldenPacket.named("RECEIPT/connid");

        new Receipts(null, null, SELF, counters).build(packet, peerFor(golden), SEND_ID, MSG_ID);

        assertSame(golden, packet.buffer, packet.length);
    }

    /** A delivery-complete operation with the golden ids, carrying the golden payload. */
    private static TxEntry dcOp(Peer peer, Protocol protocol, CompletionEntry.Kind kind, boolean cqData,
                                ByteBuffer data) {
        final TxEntry tx = new TxEntry();
        tx.peer = peer;
        tx.kind = kind;
        tx.protocol = protocol;
        tx.deliveryComplete = true;
        tx.id = (int) SEND_ID;
        tx.msgId = MSG_ID;
        tx.tagged = kind == CompletionEntry.Kind.TAGGED_SEND;
        tx.tag = TAG;
        tx.hasCqData = cqData;
        tx.cqData = CQ_DATA;
        tx.data = data;
        tx.length = data.capacity();
        return tx;
    }

    /** Fills the packet buffer with what an earlier packet may have left: a field the builder skips shows. */
    private static void dirty(ByteBuffer buffer) {
        for (int i = 0; i < buffer.capacity(); i++) {
            buffer.put(i, (byte) 0xee);
        }
    }

    private int withPayload(int at, ByteBuffer data) {
        packet.buffer.put(at, data, 0, data.capacity());
        return at + data.capacity();
    }
}
