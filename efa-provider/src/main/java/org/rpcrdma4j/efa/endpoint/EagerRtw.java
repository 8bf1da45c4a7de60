package org.rpcrdma4j.efa.endpoint;

import java.nio.ByteBuffer;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.wire.DecodedPacket;
import org.rpcrdma4j.efa.wire.EagerRtwFlyweight;
import org.rpcrdma4j.efa.wire.PacketType;

/**
 * The emulated eager write subprotocol (EFA RDM protocol v4 §3.3, table 3.8): one EAGER_RTW carries the
 * target's {@code rma_iov} and all the data. It has no id, so the initiator completes the write when the
 * packet is delivered, as the provider does; the target places the data if its registration admits the
 * write and the data fills the {@code rma_iov} exactly, and reports it only with remote CQ data.
 *
 * <p>A 0-byte EAGER_RTW without an {@code rma_iov} is a peer asking for our HANDSHAKE ({@link Handshake}).
 */
final class EagerRtw {

    private final EagerRtwFlyweight rtw = new EagerRtwFlyweight();
    private final ReqHeader header;
    private final RmaAccess access;
    private final RxSide rx;
    private final Counters counters;

    EagerRtw(ReqHeader header, RmaAccess access, RxSide rx, Counters counters) {
        this.header = header;
        this.access = access;
        this.rx = rx;
        this.counters = counters;
    }

    /** Builds the one packet of an eager write. */
    void build(PacketEntry packet, TxEntry tx) {
        final ByteBuffer buffer = packet.buffer;
        final int at = header.write(buffer, PacketType.EAGER_RTW, tx.remote, tx.peer, tx.hasCqData, tx.cqData);
        rtw.wrap(buffer, 0).rmaIovCount(1);
        buffer.put(at, tx.data, 0, tx.length);
        counters.add(EndpointCounter.BYTES_COPIED, tx.length);
        packet.length = at + tx.length;
        packet.dataLength = tx.length;
        tx.bytesBuilt = tx.length;
        tx.reqBuilt = true;
        counters.increment(EndpointCounter.EAGER_RTW_WRITES);
    }

    /** An EAGER_RTW with an rma_iov arrived: write it where it says, if it may. */
    void onReceived(Peer peer, ByteBuffer buffer, DecodedPacket packet) {
        final ByteBuffer memory = access.target(peer, buffer, packet, RmaAccess.REMOTE_WRITE, -1);
        if (memory == null) {
            return;
        }
        if (memory.capacity() != packet.payloadLength()) {
            // The provider refuses a size mismatch too (FI_EFA_ERR_RTM_MISMATCH), before copying.
            access.refuse(peer, -1);
            return;
        }
        final RxEntry entry = rx.startWriteTarget(peer, Protocol.EAGER_RTW, memory, buffer, packet);
        if (entry == null) {
            access.refuse(peer, -1);
            return;
        }
        counters.increment(EndpointCounter.EMULATED_WRITES_SERVED);
        counters.add(EndpointCounter.BYTES_COPIED, entry.place(0, buffer, packet.payloadOffset(), packet.payloadLength()));
        rx.afterData(entry);
    }
}
