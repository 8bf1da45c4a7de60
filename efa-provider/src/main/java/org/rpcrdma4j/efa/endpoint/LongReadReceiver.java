package org.rpcrdma4j.efa.endpoint;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.EnumSet;
import org.rpcrdma4j.efa.EfaErrorCode;
import org.rpcrdma4j.efa.EndpointAddress;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.device.Access;
import org.rpcrdma4j.efa.device.CompletionStatus;
import org.rpcrdma4j.efa.device.Device;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.RmaIov;
import org.rpcrdma4j.efa.wire.BaseHeaderFlyweight;
import org.rpcrdma4j.efa.wire.DecodedPacket;
import org.rpcrdma4j.efa.wire.EorFlyweight;
import org.rpcrdma4j.efa.wire.ExtraFeature;
import org.rpcrdma4j.efa.wire.LongReadRtmFlyweight;
import org.rpcrdma4j.efa.wire.PacketFlags;
import org.rpcrdma4j.efa.wire.PacketType;
import org.rpcrdma4j.efa.wire.ReadNackFlyweight;
import org.rpcrdma4j.efa.wire.RmaIovFlyweight;

/**
 * The receiving side of the long-read message subprotocol (EFA RDM protocol v4 §4.1): the
 * LONGREAD_RTM is matched like any RTM, but nothing is read before a receive matches it. Then the
 * bytes that fit the receive buffer are registered for local write and read from the sender's
 * {@code read_iov} with device RDMA reads of at most the device's largest RDMA size each; when all
 * have completed, the registration goes, the receive completes (MESSAGE_TRUNCATED if the buffer
 * was short) and an EOR tells the sender it may release its buffer.
 *
 * <p>The target of an emulated long-read write ({@link LongReadRtw}) reads the same way into the registered
 * memory the write names, and its EOR goes the same way. So does the receiver of a runting-read message
 * ({@link RuntRead}, §4.5), from {@code runt_length} on: its reads start with the first runt packet a receive
 * matches and its EOR goes when they are done, while its receive completes once the runt packets are in too.
 *
 * <p>If this endpoint cannot read (it does not use RDMA read, or the registration fails) it
 * answers READ_NACK instead (§4.7), for a runting-read message once all its runt packets are in, and
 * keeps the receive for the long-CTS RTM the sender falls back to, which
 * {@link LongCtsReceiver#onReadNackRtm} takes up.
 *
 * <p>A read that fails ends the receive with the device's status once the reads on the device are back, and
 * the sender hears it in a PEER_ERROR instead of the EOR ({@link PeerErrors}), so that the operation fails at
 * both ends; §4.1 defines no answer for it.
 *
 * <p>Reads share the device's send queue: a read the queue refuses waits, with the rest of its
 * message, for the next progress. An EOR or READ_NACK that finds no packet buffer waits too; both
 * are rebuilt from the receive's state.
 */
final class LongReadReceiver {

    /**
     * Marks the work-request id of a read posted here, so its completion is told apart from a
     * direct RDMA operation's, whose id is a TX entry id; the low 32 bits are the RX entry id.
     */
    private static final long READ_WR_ID_MARK = 1L << 32;

    private final LongReadRtmFlyweight rtm = new LongReadRtmFlyweight();
    private final EorFlyweight eor = new EorFlyweight();
    private final ReadNackFlyweight nack = new ReadNackFlyweight();
    private final BaseHeaderFlyweight base = new BaseHeaderFlyweight();
    private final ArrayDeque<RxEntry> readsWaiting = new ArrayDeque<>();
    private final ArrayDeque<RxEntry> answersOwed = new ArrayDeque<>();
    private final Device device;
    private final RxSide rx;
    private final PacketPool packets;
    private final TxQueue txQueue;
    private final EndpointAddress self;
    private final Counters counters;
    private final PeerErrors peerErrors;
    private final boolean canRead;
    /** Volatile for the {@code REGISTRATIONS} gauge on other threads; only the progress thread writes it. */
    private volatile int registrations;

    /**
     * @param canRead whether this endpoint announces and uses RDMA read; if not, every long-read
     *     message is answered with READ_NACK
     */
    LongReadReceiver(Device device, RxSide rx, PacketPool packets, TxQueue txQueue, EndpointAddress self,
                     Counters counters, PeerErrors peerErrors, boolean canRead) {
        this.device = device;
        this.peerErrors = peerErrors;
        this.rx = rx;
        this.packets = packets;
        this.txQueue = txQueue;
        this.self = self;
        this.counters = counters;
        this.canRead = canRead;
    }

    /** @return whether a device completion is that of a read posted here */
    static boolean isReceiverRead(long wrId) {
        return (wrId & READ_WR_ID_MARK) != 0;
    }

    /** A LONGREAD_RTM is next in msg_id order: match it and keep its read_iov; read once matched. */
    void onRtm(Peer peer, ByteBuffer buffer, DecodedPacket packet) {
        rtm.wrap(buffer, packet.offset());
        final RmaIov[] readIov = readIov(buffer, packet, rtm.msgLength());
        if (readIov == null) {
            counters.increment(EndpointCounter.MALFORMED_PACKETS);
            return;
        }
        final RxEntry entry = rx.arrive(peer, Protocol.LONG_READ, buffer, packet, (int) rtm.msgId(),
                packet.type().isTagged() ? rtm.tag() : 0, rtm.msgLength(), 0);
        if (entry == null) {
            return;
        }
        entry.sendId = (int) rtm.sendId();
        entry.readIov = readIov;
        rx.afterData(entry);
    }

    /**
     * §4.1: the read_iov describes the whole source, so it must cover exactly {@code msgLength} bytes.
     *
     * @return its entries, or null if they do not
     */
    static RmaIov[] readIov(ByteBuffer buffer, DecodedPacket packet, long msgLength) {
        final RmaIovFlyweight iov = new RmaIovFlyweight();
        final RmaIov[] readIov = new RmaIov[packet.readIovCount()];
        long undescribed = msgLength;
        for (int i = 0; i < readIov.length && undescribed >= 0; i++) {
            iov.wrap(buffer, packet.readIovOffset(i));
            final long length = iov.len();
            undescribed = length < 0 ? -1 : undescribed - length;
            readIov[i] = undescribed < 0 ? null : new RmaIov(iov.addr(), length, (int) iov.key());
        }
        return readIov.length == 0 || undescribed != 0 ? null : readIov;
    }

    /**
     * The message is matched: register the receive buffer and read what follows the runt (all of a long-read
     * message), or answer READ_NACK; a runting-read message answers it only once its last runt packet is in.
     */
    void start(RxEntry entry) {
        entry.readStarted = true;
        entry.readEnd = Math.min(entry.msgLength, entry.buffer.capacity());
        entry.readPosted = entry.runtLength;
        if (entry.readEnd > entry.readPosted) {
            entry.readRegion = canRead
                    ? device.registerMemory(entry.buffer.slice(0, (int) entry.readEnd), EnumSet.of(Access.LOCAL_WRITE))
                    : null;
            if (entry.readRegion == null) {
                if (entry.runtReceived == entry.runtLength) {
                    refuse(entry);
                } else {
                    entry.nackOwed = true;
                }
                return;
            }
            registrations++;
        }
        readsWaiting.add(entry);
        postReads();
    }

    /** Runting read: every runt byte of the message has arrived, so a READ_NACK it owes goes now (§4.7). */
    void onRuntIn(RxEntry entry) {
        if (entry.nackOwed) {
            entry.nackOwed = false;
            refuse(entry);
        }
    }

    /** A read posted here completed. */
    void onReadCompleted(long wrId, CompletionStatus status) {
        final RxEntry entry = rx.longReadEntry((int) wrId);
        if (entry == null) {
            return;
        }
        entry.readsOutstanding--;
        if (status != CompletionStatus.OK && entry.error == EfaErrorCode.SUCCESS) {
            entry.error = EfaErrorCode.of(status);
            entry.readFailure = status;
            // Nothing more is read: the receive ends once the reads on the device are back.
            readsWaiting.remove(entry);
            entry.readEnd = entry.readPosted;
        }
        finishIfRead(entry);
    }

    /** Deregisters a receive's read registration, once no read of it is on the device. */
    void release(RxEntry entry) {
        if (entry.readRegion != null && entry.readsOutstanding == 0) {
            device.deregisterMemory(entry.readRegion);
            entry.readRegion = null;
            registrations--;
        }
    }

    /** @return receive buffers registered for reads and not yet released */
    int registrations() {
        return registrations;
    }

    /**
     * Ends a matched receive with {@code error} (its sender aborted the message): at once, or when the last of
     * its reads on the device is back. No EOR goes; the sender knows.
     */
    void abort(RxEntry entry, EfaErrorCode error) {
        entry.error = error;
        readsWaiting.remove(entry);
        entry.readEnd = entry.readPosted;
        if (entry.readsOutstanding == 0) {
            release(entry);
            rx.complete(entry);
        }
    }

    /** Drops the reads still to post and the answers owed to a peer that is no longer active. */
    void forget(Peer peer) {
        readsWaiting.removeIf(entry -> entry.peer == peer);
        answersOwed.removeIf(entry -> entry.peer == peer);
    }

    /** Forgets every read and answer: the endpoint is closing. */
    void clear() {
        readsWaiting.clear();
        answersOwed.clear();
    }

    /** @return whether no read waits to be posted and no answer is owed */
    boolean idle() {
        return readsWaiting.isEmpty() && answersOwed.isEmpty();
    }

    /** @return how many reads were posted and EOR and READ_NACK packets sent */
    int progress() {
        int done = postReads();
        while (!answersOwed.isEmpty()) {
            final PacketEntry packet = packets.acquire();
            if (packet == null) {
                break;
            }
            build(packet, answersOwed.poll());
            txQueue.send(packet);
            done++;
        }
        return done;
    }

    /**
     * §4.7: this endpoint cannot read. A message's receive waits for the sender's long-CTS RTM; the target of
     * a write forgets it, as the write starts over as a LONGCTS_RTW. A peer whose handshake does not admit
     * READ_NACK (feature 6) cannot be told: the operation ends here with {@link EfaErrorCode#PEER_LACKS_FEATURE}
     * and the peer's waits until it ends with its peer.
     */
    private void refuse(RxEntry entry) {
        if (!entry.peer.has(ExtraFeature.READ_NACK)) {
            entry.error = EfaErrorCode.PEER_LACKS_FEATURE;
            entry.readEnd = 0;
            rx.complete(entry);
            return;
        }
        counters.increment(EndpointCounter.READ_NACKS_SENT);
        entry.readNacked = true;
        entry.protocol = Protocol.LONG_CTS;
        answer(entry);
        if (entry.writeTarget) {
            entry.error = EfaErrorCode.CANCELED;
            rx.complete(entry);
        } else {
            entry.peer.readNacked.put(entry.msgId, entry);
        }
    }

    /** Posts the waiting reads, oldest message first, until the device's send queue is full. */
    private int postReads() {
        int posted = 0;
        while (!readsWaiting.isEmpty()) {
            final RxEntry entry = readsWaiting.peek();
            if (entry.readPosted < entry.readEnd) {
                if (!postNextRead(entry)) {
                    break;
                }
                posted++;
            } else {
                readsWaiting.poll();
                finishIfRead(entry);
            }
        }
        return posted;
    }

    /** Posts the read of the next bytes, within one read_iov entry and the device's RDMA size. */
    private boolean postNextRead(RxEntry entry) {
        long start = entry.readPosted;
        int index = 0;
        while (start >= entry.readIov[index].length()) {
            start -= entry.readIov[index].length();
            index++;
        }
        final RmaIov source = entry.readIov[index];
        final long length = Math.min(Math.min(source.length() - start, entry.readEnd - entry.readPosted),
                device.attributes().maxRdmaSize());
        final Peer peer = entry.peer;
        final boolean posted = device.postRead(peer.ah, peer.address.qpn(), peer.address.connid(), entry.readRegion,
                entry.readPosted, new RmaIov(source.address() + start, length, source.key()),
                READ_WR_ID_MARK | entry.id);
        if (posted) {
            entry.readPosted += length;
            entry.readsOutstanding++;
        }
        return posted;
    }

    /**
     * When every read is posted and completed: deregister, complete the receive and answer. A failed read is
     * answered with a PEER_ERROR carrying its status instead of the EOR, so that the sender's operation ends
     * with the error too (libfabric main's {@code efa_rdm_rxe_emit_peer_error}); a peer that did not announce
     * PEER_ERROR is not answered, and its operation waits until it ends with its peer, as the provider's does.
     */
    private void finishIfRead(RxEntry entry) {
        if (entry.readPosted < entry.readEnd || entry.readsOutstanding > 0) {
            return;
        }
        release(entry);
        // What the runt does not hold is in: read, or beyond a short receive buffer.
        entry.bytesReceived += entry.msgLength - entry.runtLength;
        if (entry.error == EfaErrorCode.SUCCESS) {
            rx.afterData(entry);
        } else {
            rx.complete(entry);
        }
        if (!entry.peer.isActive()) {
            // Ended with its peer (RxSide.forget): nobody to answer.
            return;
        }
        if (entry.readFailure != null) {
            peerErrors.report(entry.peer, Integer.toUnsignedLong(entry.sendId), entry.readFailure.value());
            return;
        }
        if (entry.error != EfaErrorCode.SUCCESS) {
            // Aborted by its sender, which knows.
            return;
        }
        if (!entry.writeTarget && entry.runtLength == 0) {
            counters.increment(EndpointCounter.LONG_READ_MESSAGES_RECEIVED);
        }
        answer(entry);
    }

    /** Sends the EOR or READ_NACK now or, without a packet buffer, at a later progress. */
    private void answer(RxEntry entry) {
        final PacketEntry packet = answersOwed.isEmpty() ? packets.acquire() : null;
        if (packet == null) {
            answersOwed.add(entry);
            return;
        }
        build(packet, entry);
        txQueue.send(packet);
    }

    /**
     * Builds an EOR (§4.1 table 4.2) or READ_NACK (§4.7): the sender's send_id, our recv_id and,
     * as the provider always sends it, our connid (DISCREPANCIES.md B8).
     */
    private void build(PacketEntry packet, RxEntry entry) {
        final ByteBuffer buffer = packet.buffer;
        final PacketType type = entry.readNacked ? PacketType.READ_NACK : PacketType.EOR;
        base.wrap(buffer, 0).type(type.id()).version(BaseHeaderFlyweight.PROTOCOL_VERSION)
                .flags(PacketFlags.CONNID_HDR_FLAG);
        final long sendId = Integer.toUnsignedLong(entry.sendId);
        final long connid = Integer.toUnsignedLong(self.connid());
        if (entry.readNacked) {
            nack.wrap(buffer, 0).sendId(sendId).recvId(entry.id).connid(connid);
        } else {
            eor.wrap(buffer, 0).sendId(sendId).recvId(entry.id).connid(connid);
        }
        packet.length = type.mandatoryHeaderLength();
        packet.assign(entry.peer);
    }
}
