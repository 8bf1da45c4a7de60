package org.rpcrdma4j.efa.endpoint;

import java.nio.ByteBuffer;
import org.rpcrdma4j.efa.CompletionEntry;
import org.rpcrdma4j.efa.EndpointAddress;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.wire.BaseHeaderFlyweight;
import org.rpcrdma4j.efa.wire.DecodedPacket;
import org.rpcrdma4j.efa.wire.PacketFlags;
import org.rpcrdma4j.efa.wire.PacketType;
import org.rpcrdma4j.efa.wire.ReadRspFlyweight;
import org.rpcrdma4j.efa.wire.RtrFlyweight;

/**
 * The responder of the emulated read subprotocols (EFA RDM protocol v4 §3.3): a SHORT_RTR or LONGCTS_RTR
 * is checked ({@link RmaAccess}: key, bounds, remote-read right, and a {@code msg_length} equal to the
 * {@code rma_iov}'s), then served as the provider serves both ({@code efa_rdm_pke_handle_rtr_recv}): a
 * READRSP with as many first bytes as fit, then CTSDATA in the window the RTR's {@code recv_length} grants
 * and in those the requester's CTS packets grant after ({@link LongCtsSender}).
 *
 * <p>The serving is a TX entry of the endpoint's own ({@link TxEntry#internal}): its id is the READRSP's
 * {@code send_id}, by which the requester's CTS finds it; it holds a TX entry until its last packet has
 * completed, and no completion is written. Ownership: its data is a slice of the registered memory read,
 * which the application must keep registered while peers may read it.
 */
final class ReadResponder {

    private final RtrFlyweight rtr = new RtrFlyweight();
    private final ReadRspFlyweight rsp = new ReadRspFlyweight();
    private final BaseHeaderFlyweight base = new BaseHeaderFlyweight();
    private final RmaAccess access;
    private final LongCtsSender sender;
    private final EndpointAddress self;
    private final Counters counters;
    private final int mtu;
    private final int sendsPerPeer;
    private TxSide tx;

    ReadResponder(RmaAccess access, LongCtsSender sender, EndpointAddress self, Counters counters, int mtu,
                  int sendsPerPeer) {
        this.sendsPerPeer = sendsPerPeer;
        this.access = access;
        this.sender = sender;
        this.self = self;
        this.counters = counters;
        this.mtu = mtu;
    }

    void txSide(TxSide side) {
        tx = side;
    }

    /** A SHORT_RTR or LONGCTS_RTR arrived: serve it if the memory it names may be read. */
    void onRtr(Peer peer, ByteBuffer buffer, DecodedPacket packet) {
        rtr.wrap(buffer, packet.offset());
        final long recvId = rtr.recvId();
        final ByteBuffer memory = access.target(peer, buffer, packet, RmaAccess.REMOTE_READ, recvId);
        if (memory == null) {
            return;
        }
        if (rtr.msgLength() != memory.capacity()) {
            access.refuse(peer, recvId);
            return;
        }
        final TxEntry serving = new TxEntry();
        serving.peer = peer;
        serving.kind = CompletionEntry.Kind.READ;
        serving.protocol = Protocol.READ_RESPONSE;
        serving.internal = true;
        serving.data = memory;
        serving.length = memory.capacity();
        serving.recvId = (int) recvId;
        // Table 3.12: recv_length is what the requester is ready for; a SHORT_RTR's is the whole read (A3).
        serving.windowEnd = (int) Math.min(serving.length, rtr.recvLength());
        // A peer's reads served at once count with our operations towards it (EndpointLimits.sendsPerPeer).
        if (peer.txEntries >= sendsPerPeer || !tx.register(serving)) {
            access.refuse(peer, recvId);
            return;
        }
        counters.increment(EndpointCounter.EMULATED_READS_SERVED);
        tx.start(serving);
    }

    /** Builds the READRSP if it is not built yet, else the next CTSDATA packet of the window. */
    void build(PacketEntry packet, TxEntry serving) {
        if (serving.reqBuilt) {
            sender.buildData(packet, serving);
            return;
        }
        final int segment = Math.min(serving.length, mtu - ReadRspFlyweight.HEADER_LENGTH);
        final ByteBuffer buffer = packet.buffer;
        build(buffer, Integer.toUnsignedLong(serving.recvId), serving.id, segment);
        buffer.put(ReadRspFlyweight.HEADER_LENGTH, serving.data, 0, segment);
        counters.add(EndpointCounter.BYTES_COPIED, segment);
        packet.length = ReadRspFlyweight.HEADER_LENGTH + segment;
        packet.dataLength = segment;
        serving.bytesBuilt = segment;
        serving.windowEnd = Math.max(serving.windowEnd, segment);
        serving.reqBuilt = true;
    }

    /**
     * Writes a READRSP header as the provider does (DISCREPANCIES.md A1): the requester's id at offset 8,
     * ours at 12, our connid always present.
     */
    void build(ByteBuffer buffer, long recvId, long sendId, long segLength) {
        base.wrap(buffer, 0).type(PacketType.READRSP.id()).version(BaseHeaderFlyweight.PROTOCOL_VERSION)
                .flags(PacketFlags.CONNID_HDR_FLAG);
        rsp.wrap(buffer, 0).connid(Integer.toUnsignedLong(self.connid())).recvId(recvId).sendId(sendId)
                .segLength(segLength);
    }
}
