package org.rpcrdma4j.efa.endpoint;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.Device;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.wire.DecodedPacket;
import org.rpcrdma4j.efa.wire.EorFlyweight;
import org.rpcrdma4j.efa.wire.LongReadRtmFlyweight;
import org.rpcrdma4j.efa.wire.PacketType;
import org.rpcrdma4j.efa.wire.ReadNackFlyweight;
import org.rpcrdma4j.efa.wire.RmaIovFlyweight;

/**
 * The sending side of the long-read message subprotocol (EFA RDM protocol v4 §4.1, tables 4.1
 * and 4.2): the send buffer is registered for remote read, one LONGREAD_RTM carries its
 * {@code read_iov} instead of data, and the TX entry stays until the receiver's EOR says every
 * byte has been read; then the registration goes and the send completes. The RTM's
 * {@code send_id} is the TX entry id, by which the EOR finds the operation again.
 *
 * <p>An emulated long-read write ({@link LongReadRtw}) and a runting-read message ({@link RuntRead}, §4.5)
 * register, wait for their EOR and fall back the same way; a runting-read message that fits its runt is not
 * read and waits for no EOR.
 *
 * <p>A receiver that cannot read answers READ_NACK (§4.7): the registration goes at once and the
 * message goes on as long-CTS, with the same msg_id, its RTM marked {@code REQ_READ_NACK} and
 * carrying no data (DISCREPANCIES.md B6); a runting-read message's CTSDATA start after the runt.
 *
 * <p>Here too is the count of messages being read, from their RTM to their reader's answer, which runting
 * read waits for to be 0 ({@link ProtocolSelector}).
 */
final class LongReadSender {

    private final LongReadRtmFlyweight rtm = new LongReadRtmFlyweight();
    private final RmaIovFlyweight iov = new RmaIovFlyweight();
    private final EorFlyweight eor = new EorFlyweight();
    private final ReadNackFlyweight nack = new ReadNackFlyweight();
    private final Device device;
    private final ReqHeader header;
    private final IdTable<TxEntry> txEntries;
    private final Counters counters;
    /** Volatile for the {@code REGISTRATIONS} gauge on other threads; only the progress thread writes it. */
    private volatile int registrations;
    /** Long-read and runting-read messages whose reader has not answered ({@code num_read_msg_in_flight}). */
    private int messagesBeingRead;

    LongReadSender(Device device, ReqHeader header, IdTable<TxEntry> txEntries, Counters counters) {
        this.device = device;
        this.header = header;
        this.txEntries = txEntries;
        this.counters = counters;
    }

    /**
     * The number of {@code read_iov} entries describing {@code length} bytes, each at most the
     * device's largest RDMA operation (§1.1); a long-read message is never empty.
     */
    static long readIovCount(long length, long maxRdmaSize) {
        return (length + maxRdmaSize - 1) / maxRdmaSize;
    }

    /**
     * Writes the {@code read_iov} of a registered source at {@code at}: {@link #readIovCount} entries of at most
     * the device's largest RDMA operation, as a LONGREAD_MSGRTM, LONGREAD_TAGRTM or LONGREAD_RTW carries it.
     *
     * @return where the entries end
     */
    static int writeReadIov(RmaIovFlyweight iov, ByteBuffer buffer, int at, long address, int key, long length,
                            long maxRdmaSize) {
        int end = at;
        for (long offset = 0; offset < length; offset += maxRdmaSize) {
            iov.wrap(buffer, end).addr(address + offset).len(Math.min(maxRdmaSize, length - offset))
                    .key(Integer.toUnsignedLong(key));
            end += RmaIovFlyweight.LENGTH;
        }
        return end;
    }

    /**
     * Registers the send buffer for the peer to read (§4.1: "the sender needs to register the
     * buffer in-line"). Registration is a limited resource and may fail.
     *
     * @return false if the device registered nothing; the message must then take another subprotocol
     */
    boolean register(TxEntry tx) {
        tx.sendRegion = device.registerMemory(tx.data, EnumSet.of(Access.REMOTE_READ));
        if (tx.sendRegion == null) {
            return false;
        }
        tx.described = tx.sendRegion;
        registrations++;
        return true;
    }

    /** Builds the LONGREAD_RTM: the REQ headers, then the read_iov as its application data. */
    void build(PacketEntry packet, TxEntry tx) {
        final PacketType type = tx.tagged ? PacketType.LONGREAD_TAGRTM : PacketType.LONGREAD_MSGRTM;
        final ByteBuffer buffer = packet.buffer;
        final int at = header.write(buffer, type, RxSide.categoryFlags(tx.tagged), tx.peer, tx.hasCqData,
                tx.cqData);
        final long maxRdmaSize = device.attributes().maxRdmaSize();
        final long count = readIovCount(tx.length, maxRdmaSize);
        rtm.wrap(buffer, 0).msgId(Integer.toUnsignedLong(tx.msgId)).msgLength(tx.length).sendId(tx.id)
                .readIovCount(count);
        if (tx.tagged) {
            rtm.tag(tx.tag);
        }
        packet.length = writeReadIov(iov, buffer, at, tx.sendRegion.address(), tx.sendRegion.key(), tx.length,
                maxRdmaSize);
        packet.dataLength = 0;
        tx.bytesBuilt = tx.length;
        tx.reqBuilt = true;
        countRead(tx);
        counters.increment(EndpointCounter.LONG_READ_MESSAGES_SENT);
    }

    /** A message's reader has its read_iov now: it counts among the messages being read until it answers. */
    void countRead(TxEntry tx) {
        tx.readInFlight = true;
        messagesBeingRead++;
    }

    /** @return long-read and runting-read messages whose reader has not answered EOR, READ_NACK or PEER_ERROR */
    int messagesBeingRead() {
        return messagesBeingRead;
    }

    /**
     * The receiver has read everything (§4.1): the registration goes; the send completes once
     * the RTM's own send completion is in too.
     *
     * @return the operation, or null if the EOR names none of ours
     */
    TxEntry onEor(Peer peer, ByteBuffer buffer, DecodedPacket packet) {
        final TxEntry tx = find(peer, eor.wrap(buffer, packet.offset()).sendId());
        if (tx == null) {
            return null;
        }
        release(tx);
        tx.eorReceived = true;
        return tx;
    }

    /**
     * The receiver cannot read (§4.7): release the registration and go on as long-CTS, with the
     * same msg_id so that the receiver finds its receive again.
     *
     * @return the operation, now long-CTS with its RTM or RTW to build, or null if the READ_NACK names none of ours
     */
    TxEntry onReadNack(Peer peer, ByteBuffer buffer, DecodedPacket packet) {
        final TxEntry tx = find(peer, nack.wrap(buffer, packet.offset()).sendId());
        if (tx == null) {
            return null;
        }
        counters.increment(EndpointCounter.READ_NACKS_RECEIVED);
        release(tx);
        // A message goes on after its runt, which the receiver has (§4.7: it answers once every runt packet is
        // in). A write has no msg_id to keep: it starts over as a plain LONGCTS_RTW, whose target checks it anew.
        tx.readNacked = tx.protocol == Protocol.LONG_READ || tx.protocol == Protocol.RUNT_READ;
        tx.bytesBuilt = tx.protocol == Protocol.RUNT_READ ? tx.runtLength : 0;
        tx.protocol = tx.readNacked ? Protocol.LONG_CTS : Protocol.LONGCTS_RTW;
        tx.reqBuilt = false;
        tx.windowEnd = tx.bytesBuilt;
        return tx;
    }

    /**
     * The peer reads the send buffer no more (it answered, or the operation ended): deregisters it, if it is still
     * registered, and the message no longer counts as being read.
     */
    void release(TxEntry tx) {
        if (tx.readInFlight) {
            tx.readInFlight = false;
            messagesBeingRead--;
        }
        if (tx.sendRegion != null) {
            final MemoryRegion region = tx.sendRegion;
            tx.sendRegion = null;
            registrations--;
            device.deregisterMemory(region);
        }
    }

    /** @return send buffers registered and not yet released */
    int registrations() {
        return registrations;
    }

    private TxEntry find(Peer peer, long sendId) {
        final TxEntry tx = txEntries.get(sendId);
        return tx == null || tx.peer != peer || !tx.awaitsEor() || tx.completed || !tx.reqBuilt || tx.eorReceived
                ? null : tx;
    }
}
