package org.rpcrdma4j.efa.endpoint;

import java.nio.ByteBuffer;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.device.RmaIov;
import org.rpcrdma4j.efa.wire.DecodedPacket;
import org.rpcrdma4j.efa.wire.LongReadRtwFlyweight;
import org.rpcrdma4j.efa.wire.PacketType;
import org.rpcrdma4j.efa.wire.RmaIovFlyweight;

/**
 * The emulated long-read write subprotocol (EFA RDM protocol v4 §4.1, table 4.3): the initiator registers
 * its source for remote read ({@link LongReadSender#register}) and sends a LONGREAD_RTW with the target's
 * {@code rma_iov} and the source's {@code read_iov}; the target checks the {@code rma_iov}, pulls the bytes
 * with RDMA reads straight into the registered memory and answers EOR ({@link LongReadReceiver}). A
 * target that cannot read answers READ_NACK (§4.7), and the write starts over as long-CTS ({@link LongCtsRtw}).
 * Used only when both ends announced RDMA read.
 */
final class LongReadRtw {

    private final LongReadRtwFlyweight rtw = new LongReadRtwFlyweight();
    private final RmaIovFlyweight iov = new RmaIovFlyweight();
    private final ReqHeader header;
    private final long maxRdmaSize;
    private final RmaAccess access;
    private final RxSide rx;
    private final Counters counters;

    LongReadRtw(ReqHeader header, long maxRdmaSize, RmaAccess access, RxSide rx, Counters counters) {
        this.header = header;
        this.maxRdmaSize = maxRdmaSize;
        this.access = access;
        this.rx = rx;
        this.counters = counters;
    }

    /** Builds the LONGREAD_RTW: the REQ headers, then the read_iov of the registered source. */
    void build(PacketEntry packet, TxEntry tx) {
        final ByteBuffer buffer = packet.buffer;
        final int at = writeHeader(buffer, tx.peer, tx.remote, tx.length, tx.id,
                LongReadSender.readIovCount(tx.length, maxRdmaSize), tx.hasCqData, tx.cqData);
        packet.length = writeReadIov(buffer, at, tx.sendRegion.address(), tx.length, tx.sendRegion.key());
        packet.dataLength = 0;
        tx.bytesBuilt = tx.length;
        tx.reqBuilt = true;
        counters.increment(EndpointCounter.LONGREAD_RTW_WRITES);
    }

    /**
     * Writes a LONGREAD_RTW's headers (table 4.3) with one rma_iov entry.
     *
     * @return the header length: where the read_iov starts
     */
    int writeHeader(ByteBuffer buffer, Peer peer, RmaIov remote, long msgLength, long sendId, long readIovCount,
                    boolean hasCqData, long cqData) {
        final int at = header.write(buffer, PacketType.LONGREAD_RTW, remote, peer, hasCqData, cqData);
        rtw.wrap(buffer, 0).rmaIovCount(1).msgLength(msgLength).sendId(sendId).readIovCount(readIovCount);
        return at;
    }

    /**
     * Writes the read_iov after the headers: the source in entries of at most the device's RDMA size.
     *
     * @return where the packet ends
     */
    int writeReadIov(ByteBuffer buffer, int at, long address, long length, int key) {
        return LongReadSender.writeReadIov(iov, buffer, at, address, key, length, maxRdmaSize);
    }

    /** A LONGREAD_RTW arrived: check the target and the read_iov, then read (or answer READ_NACK). */
    void onReceived(Peer peer, ByteBuffer buffer, DecodedPacket packet) {
        rtw.wrap(buffer, packet.offset());
        final long sendId = rtw.sendId();
        final ByteBuffer memory = access.target(peer, buffer, packet, RmaAccess.REMOTE_WRITE, sendId);
        if (memory == null) {
            return;
        }
        final RmaIov[] readIov = LongReadReceiver.readIov(buffer, packet, memory.capacity());
        if (rtw.msgLength() != memory.capacity() || readIov == null) {
            access.refuse(peer, sendId);
            return;
        }
        final RxEntry entry = rx.startWriteTarget(peer, Protocol.LONG_READ, memory, buffer, packet);
        if (entry == null) {
            access.refuse(peer, sendId);
            return;
        }
        counters.increment(EndpointCounter.EMULATED_WRITES_SERVED);
        entry.sendId = (int) sendId;
        entry.readIov = readIov;
        rx.afterData(entry);
    }
}
