package org.rpcrdma4j.efa.endpoint;

import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.rpcrdma4j.efa.DroppedMessages;
import org.rpcrdma4j.efa.EfaErrorCode;
import org.rpcrdma4j.efa.EndpointConfig;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.EndpointLimits;
import org.rpcrdma4j.efa.wire.DecodedPacket;
import org.rpcrdma4j.efa.wire.PacketFlags;
import org.rpcrdma4j.efa.wire.ReqOptionalHeadersFlyweight;

/**
 * The receive operations: posting a receive, a message arriving (matched or unexpected), data
 * placed, the long-CTS window moving on, the long-read and runting-read reads starting once matched,
 * and the completion, with the RECEIPT a delivery-complete REQ asks for ({@link Receipts}). The subprotocol
 * classes call in here with what their packets say; the matching itself is {@link RxMatcher}'s.
 *
 * <p>Bounds ({@link EndpointLimits}): a message on an undeclared or closed tag is dropped before it
 * takes anything; an unexpected message takes an RX entry and its staged bytes only within the per-peer
 * and total limits; packets the reorder window holds count against the same byte limits. An unexpected
 * message dropped for lack of room is counted and reported by peer and tag ({@link DroppedMessages}).
 */
final class RxSide {

    private record DropKey(long source, boolean tagged, long tag) {
    }

    private final ReqOptionalHeadersFlyweight optional = new ReqOptionalHeadersFlyweight();
    private final RxMatcher matcher = new RxMatcher();
    private final IdTable<RxEntry> entries;
    private final CompletionQueue cq;
    private final Counters counters;
    private final EndpointLimits limits;
    /** Whether the endpoint declared its tags: then it takes those in {@link #tags} only, else all but {@link #closed}. */
    private final boolean declared;
    private final Set<Long> tags;
    private final Set<Long> closed = new HashSet<>();
    /** The reports not yet polled, one per peer and tag: as many as kinds of traffic dropped between two polls. */
    private final Map<DropKey, DroppedMessages> dropped = new LinkedHashMap<>();
    private int unexpectedMessages;
    /** Volatile for the {@code UNEXPECTED_BYTES} gauge on other threads; only the progress thread writes it. */
    private volatile long heldBytes;
    private LongCtsReceiver longCts;
    private LongReadReceiver longRead;
    private EmulatedRead emulatedRead;
    private Receipts receipts;

    RxSide(EndpointConfig config, CompletionQueue cq, Counters counters) {
        this.entries = new IdTable<>(config.rxEntryCount());
        this.cq = cq;
        this.counters = counters;
        this.limits = config.limits();
        this.declared = !config.tags().isEmpty();
        this.tags = new HashSet<>(config.tags());
    }

    void subprotocols(LongCtsReceiver longCtsReceiver, LongReadReceiver longReadReceiver, EmulatedRead read,
                      Receipts receipt) {
        longCts = longCtsReceiver;
        longRead = longReadReceiver;
        emulatedRead = read;
        receipts = receipt;
    }

    /**
     * The {@code recv_id} an entry has on the wire. An emulated read's carries {@link #READ_RECV_ID_MARK}, so that a
     * CTSDATA, READRSP or PEER_ERROR for a read is never taken for a message's, or the other way round.
     */
    static long wireId(RxEntry entry) {
        return entry.readOp != null ? READ_RECV_ID_MARK | entry.id : entry.id;
    }

    /** Marks the recv_id of an emulated read; RX entry ids stay far below it. */
    static final long READ_RECV_ID_MARK = 1L << 31;

    /**
     * A peer's emulated write into {@code memory}, checked already: it takes an RX entry, never a posted receive,
     * and a peer has at most {@link EndpointLimits#sendsPerPeer()} of them in progress.
     *
     * @return the entry, or null if the peer has as many as it may or the RX entry table is full
     */
    RxEntry startWriteTarget(Peer peer, Protocol protocol, ByteBuffer memory, ByteBuffer buffer, DecodedPacket packet) {
        if (peer.writeTargets >= limits.sendsPerPeer()) {
            return null;
        }
        final RxEntry entry = new RxEntry();
        entry.peer = peer;
        entry.protocol = protocol;
        entry.writeTarget = true;
        entry.deliveryComplete = Receipts.requested(packet.type());
        entry.buffer = memory;
        entry.msgLength = memory.capacity();
        if (packet.hasFlag(PacketFlags.REQ_OPT_CQ_DATA_HDR_FLAG)) {
            entry.hasCqData = true;
            entry.cqData = optional.wrap(buffer, packet.optionalHeadersOffset(), packet.flags()).cqData();
        }
        final int id = entries.add(entry);
        if (id < 0) {
            return null;
        }
        entry.id = id;
        peer.writeTargets++;
        return entry;
    }

    /**
     * The receiving half of an emulated read into {@code into} (§3.3): a long-CTS receive whose first
     * window the RTR grants.
     *
     * @return the entry, or null if the RX entry table is full
     */
    RxEntry startRead(TxEntry op, ByteBuffer into, long window) {
        final RxEntry entry = new RxEntry();
        entry.peer = op.peer;
        entry.protocol = Protocol.LONG_CTS;
        entry.readOp = op;
        entry.buffer = into;
        entry.msgLength = into.capacity();
        entry.windowEnd = window;
        entry.creditRequest = Long.MAX_VALUE;
        final int id = entries.add(entry);
        if (id < 0) {
            return null;
        }
        entry.id = id;
        return entry;
    }

    /** @return the read in progress a READRSP or PEER_ERROR names, or null */
    RxEntry readEntry(Peer peer, long recvId) {
        final RxEntry entry = (recvId & READ_RECV_ID_MARK) == 0 ? null : entries.get(recvId & ~READ_RECV_ID_MARK);
        return entry != null && entry.peer == peer && entry.readOp != null ? entry : null;
    }

    /** §3.1 table 3.1: every RTM carries REQ_MSG, a TAGRTM REQ_TAGGED too. */
    static int categoryFlags(boolean tagged) {
        return PacketFlags.REQ_MSG_FLAG | (tagged ? PacketFlags.REQ_TAGGED_FLAG : 0);
    }

    /**
     * Posts a receive, or matches it with the oldest unexpected message it takes. That message
     * already holds an RX entry, which the receive takes over, so a table filled by unexpected
     * messages never keeps the application from draining them.
     *
     * @return false if the RX entry table is full (EAGAIN)
     */
    boolean post(RxEntry posted) {
        final RxEntry message = matcher.takeUnexpected(posted);
        if (message != null) {
            release(message.peer, 1, message.staging.capacity());
            posted.id = message.id;
            message.attach(posted);
            counters.add(EndpointCounter.BYTES_COPIED, message.unstage());
            afterData(message);
            return true;
        }
        final int id = entries.add(posted);
        if (id < 0) {
            return false;
        }
        posted.id = id;
        matcher.addPosted(posted);
        return true;
    }

    /**
     * The first packet of a message is next in msg_id order: match it with a posted receive or
     * queue it as unexpected, staging up to {@code stagingCapacity} bytes, bounded by the caller.
     *
     * @return the message, or null if it is unexpected and no RX entry is free: it is dropped
     */
    RxEntry arrive(Peer peer, Protocol protocol, ByteBuffer buffer, DecodedPacket packet, int msgId, long tag,
                   long msgLength, int stagingCapacity) {
        final boolean tagged = packet.type().isTagged();
        if (!takes(tagged, tag)) {
            counters.increment(EndpointCounter.UNDECLARED_TAG_MESSAGES);
            return null;
        }
        final RxEntry message = new RxEntry();
        message.peer = peer;
        message.protocol = protocol;
        message.msgId = msgId;
        message.msgTag = tag;
        message.msgLength = msgLength;
        message.deliveryComplete = Receipts.requested(packet.type());
        if (packet.hasFlag(PacketFlags.REQ_OPT_CQ_DATA_HDR_FLAG)) {
            message.hasCqData = true;
            message.cqData = optional.wrap(buffer, packet.optionalHeadersOffset(), packet.flags()).cqData();
        }
        final RxEntry posted = matcher.takePosted(peer, tagged, tag);
        if (posted != null) {
            message.attach(posted);
            entries.replace(posted.id, message);
        } else {
            final DroppedMessages.Bound full = admitUnexpected(peer, stagingCapacity);
            final int id = full == null ? entries.add(message) : -1;
            if (id < 0) {
                if (full == null) {
                    // Admitted, but every RX entry is taken.
                    release(peer, 1, stagingCapacity);
                }
                dropUnexpected(peer, tagged, tag, full == null ? DroppedMessages.Bound.RX_ENTRIES : full);
                return null;
            }
            counters.increment(EndpointCounter.UNEXPECTED_MESSAGES);
            message.id = id;
            message.tagged = tagged;
            message.staging = ByteBuffer.allocate(stagingCapacity);
            matcher.addUnexpected(message, tagged);
        }
        return message;
    }

    private boolean takes(boolean tagged, long tag) {
        return declared ? tagged && tags.contains(tag) : !tagged || !closed.contains(tag);
    }

    /** Takes messages on a tag again, or for the first time; see {@link #closeTag}. */
    void openTag(long tag) {
        if (declared) {
            tags.add(tag);
        } else {
            closed.remove(tag);
        }
    }

    /**
     * Stops taking messages on a tag: receives posted for exactly it complete with
     * {@link EfaErrorCode#CANCELED}, its unexpected messages are dropped and counted
     * ({@link EndpointCounter#CLOSED_TAG_MESSAGES}), and what arrives on it from now on is dropped at
     * once. Messages a receive has matched already go on to their completion.
     */
    void closeTag(long tag) {
        if (declared) {
            tags.remove(tag);
        } else {
            closed.add(tag);
        }
        matcher.closeTag(tag, posted -> {
            entries.remove(posted.id);
            cq.recvDone(posted, 0, EfaErrorCode.CANCELED);
        }, message -> {
            counters.increment(EndpointCounter.CLOSED_TAG_MESSAGES);
            // Its later segments, if any, are orphans from now on.
            message.peer.mediumInProgress.remove(message.msgId, message);
            drop(message);
        });
    }

    /** @return the matched long-CTS receive, emulated write or emulated read a CTSDATA names, or null */
    RxEntry longCtsEntry(Peer peer, long recvId) {
        final RxEntry entry = (recvId & READ_RECV_ID_MARK) != 0 ? readEntry(peer, recvId) : entries.get(recvId);
        return entry != null && entry.peer == peer && entry.protocol == Protocol.LONG_CTS && entry.isMatched()
                && !entry.receiptOwed && (entry.readOp == null) == ((recvId & READ_RECV_ID_MARK) == 0) ? entry : null;
    }

    /** @return the matched long-read or runting-read receive a read's work-request id names, or null */
    RxEntry longReadEntry(int recvId) {
        final RxEntry entry = entries.get(recvId);
        return entry != null && (entry.protocol == Protocol.LONG_READ || entry.protocol == Protocol.RUNT_READ)
                && entry.readStarted ? entry : null;
    }

    /**
     * Data was placed or the message matched: complete the receive, grant the next long-CTS
     * window, or start reading a long-read or runting-read message (§4.1, §4.5: only once a receive
     * has matched it).
     */
    void afterData(RxEntry entry) {
        if (!entry.isMatched()) {
            return;
        }
        if (entry.isComplete()) {
            complete(entry);
        } else if (entry.protocol == Protocol.LONG_CTS && entry.bytesReceived >= entry.windowEnd) {
            longCts.sendCts(entry);
        } else if ((entry.protocol == Protocol.LONG_READ || entry.protocol == Protocol.RUNT_READ)
                && entry.readIov != null && !entry.readStarted) {
            longRead.start(entry);
        }
    }

    int unexpectedCount() {
        return matcher.unexpectedCount();
    }

    long heldBytes() {
        return heldBytes;
    }

    int entryCount() {
        return entries.size();
    }

    /**
     * Takes {@code bytes} of the per-peer and total byte limits for something held for a peer
     * before a receive takes it.
     *
     * @return false if that would exceed a limit; nothing is taken then
     */
    boolean hold(Peer peer, long bytes) {
        if (byteBound(peer, bytes) != null) {
            return false;
        }
        peer.heldBytes += bytes;
        heldBytes += bytes;
        return true;
    }

    /** @return the byte limit that holding {@code bytes} more for a peer would exceed, or null */
    private DroppedMessages.Bound byteBound(Peer peer, long bytes) {
        return peer.heldBytes + bytes > limits.unexpectedBytesPerPeer() ? DroppedMessages.Bound.BYTES_PER_PEER
                : heldBytes + bytes > limits.unexpectedBytesTotal() ? DroppedMessages.Bound.BYTES_TOTAL : null;
    }

    /**
     * @return null if one more unexpected message of this size stays within the limits, and then it is
     *     counted; else the limit it would exceed
     */
    private DroppedMessages.Bound admitUnexpected(Peer peer, long bytes) {
        final DroppedMessages.Bound bound = peer.unexpectedMessages >= limits.unexpectedMessagesPerPeer()
                ? DroppedMessages.Bound.MESSAGES_PER_PEER
                : unexpectedMessages >= limits.unexpectedMessagesTotal() ? DroppedMessages.Bound.MESSAGES_TOTAL
                : byteBound(peer, bytes);
        if (bound == null) {
            hold(peer, bytes);
            peer.unexpectedMessages++;
            unexpectedMessages++;
        }
        return bound;
    }

    private void dropUnexpected(Peer peer, boolean tagged, long tag, DroppedMessages.Bound bound) {
        counters.increment(EndpointCounter.UNEXPECTED_DROPPED_MESSAGES);
        final long limit = switch (bound) {
            case MESSAGES_PER_PEER -> limits.unexpectedMessagesPerPeer();
            case BYTES_PER_PEER -> limits.unexpectedBytesPerPeer();
            case MESSAGES_TOTAL -> limits.unexpectedMessagesTotal();
            case BYTES_TOTAL -> limits.unexpectedBytesTotal();
            case RX_ENTRIES -> entries.capacity();
        };
        final long reportedTag = tagged ? tag : 0;
        dropped.merge(new DropKey(peer.fiAddr, tagged, reportedTag),
                new DroppedMessages(peer.fiAddr, tagged, reportedTag, 1, peer.unexpectedMessages, bound, limit),
                (earlier, last) -> new DroppedMessages(last.source(), last.tagged(), last.tag(),
                        earlier.messages() + 1, last.unexpected(), last.bound(), last.limit()));
    }

    /** Hands over the drop reports, oldest first, each once; see {@link DroppedMessages}. */
    int pollDropped(Consumer<DroppedMessages> sink) {
        int polled = 0;
        while (!dropped.isEmpty()) {
            final Iterator<DroppedMessages> oldest = dropped.values().iterator();
            final DroppedMessages report = oldest.next();
            oldest.remove();
            sink.accept(report);
            polled++;
        }
        return polled;
    }

    /** Gives back what {@link #hold} took, and {@code messages} unexpected messages. */
    void release(Peer peer, int messages, long bytes) {
        peer.unexpectedMessages -= messages;
        unexpectedMessages -= messages;
        peer.heldBytes -= bytes;
        heldBytes -= bytes;
    }

    /**
     * Cancels a receive no message has matched yet ({@code fi_cancel}): it completes with
     * {@link EfaErrorCode#CANCELED}.
     *
     * @return false if no such receive waits (it matched a message already, or never was)
     */
    boolean cancel(long context) {
        final RxEntry posted = matcher.takePosted(context);
        if (posted == null) {
            return false;
        }
        entries.remove(posted.id);
        cq.recvDone(posted, 0, EfaErrorCode.CANCELED);
        return true;
    }

    /** Ends a matched receive whose sender aborted its message, once no read of it is on the device. */
    void abort(RxEntry entry, EfaErrorCode error) {
        longRead.abort(entry, error);
    }

    /** A directed receive posted for a peer that is no longer active ends at once. */
    void refuse(RxEntry posted, EfaErrorCode error) {
        cq.recvDone(posted, 0, error);
    }

    /**
     * Ends everything received from or posted for a peer that is no longer active: receives
     * directed at it and messages in progress complete with its failure, unexpected messages and
     * early packets are dropped. A long-read receive whose reads are still on the device completes
     * when they do.
     */
    void forget(Peer peer) {
        final EfaErrorCode error = peer.failure();
        matcher.forget(peer, posted -> {
            entries.remove(posted.id);
            cq.recvDone(posted, 0, error);
        }, this::drop);
        for (int id = 0; id < entries.capacity(); id++) {
            final RxEntry entry = entries.get(id);
            if (entry != null && entry.peer == peer && entry.isMatched() && !entry.receiptOwed) {
                entry.error = error;
                entry.ctsPending = false;
                if (entry.readsOutstanding > 0) {
                    // No more reads; LongReadReceiver completes it with the last one.
                    entry.readEnd = entry.readPosted;
                } else {
                    longRead.release(entry);
                    complete(entry);
                }
            }
        }
        release(peer, 0, peer.heldBytes);
        peer.reorder.clear();
        peer.mediumInProgress.clear();
        peer.readNacked.clear();
    }

    /** Ends every receive with CANCELED and drops every unexpected message: the endpoint is closing. */
    void cancelAll() {
        for (int id = 0; id < entries.capacity(); id++) {
            final RxEntry entry = entries.get(id);
            if (entry == null) {
                continue;
            }
            if (entry.receiptOwed) {
                receiptSent(entry);
            } else if (entry.isMatched()) {
                entry.error = EfaErrorCode.CANCELED;
                // The device is closing: no read of it will complete.
                entry.readsOutstanding = 0;
                longRead.release(entry);
                complete(entry);
            } else {
                drop(entry);
            }
        }
        matcher.clear();
    }

    /** An unexpected message no receive will take. */
    private void drop(RxEntry message) {
        entries.remove(message.id);
        release(message.peer, 1, message.staging.capacity());
    }

    /**
     * The receive, write target or read ends: its completion is written and, for a delivery-complete REQ whose
     * data is in place, its RECEIPT sent (§4.2), after the completion as libfabric's
     * {@code efa_rdm_ope_handle_recv_completed} does. A truncated message counts as delivered: its first bytes
     * are in place, and the receiver's completion says the rest were cut.
     */
    void complete(RxEntry entry) {
        if (entry.readOp != null) {
            entries.remove(entry.id);
            emulatedRead.onReceived(entry);
            return;
        }
        final boolean delivered;
        if (entry.writeTarget) {
            entry.peer.writeTargets--;
            delivered = entry.error == EfaErrorCode.SUCCESS;
            if (entry.hasCqData && delivered) {
                // §3.3: only FI_REMOTE_CQ_DATA makes the target of a write report it.
                cq.remoteWriteDone(entry);
            }
        } else {
            final long capacity = entry.buffer.capacity();
            final boolean truncated = entry.msgLength > capacity;
            final EfaErrorCode error = entry.error != EfaErrorCode.SUCCESS ? entry.error
                    : truncated ? EfaErrorCode.MESSAGE_TRUNCATED : EfaErrorCode.SUCCESS;
            delivered = error == EfaErrorCode.SUCCESS || error == EfaErrorCode.MESSAGE_TRUNCATED;
            cq.recvDone(entry, delivered ? Math.min(entry.msgLength, capacity) : 0, error);
            if (entry.protocol == Protocol.MEDIUM || entry.protocol == Protocol.RUNT_READ) {
                // Ended before its last segment (aborted, or a read failed): later ones are orphans.
                entry.peer.mediumInProgress.remove(entry.msgId, entry);
            }
        }
        if (!entry.deliveryComplete || !delivered || !entry.peer.isActive() || receipts.send(entry)) {
            entries.remove(entry.id);
        }
    }

    /** A completed entry's RECEIPT went out at last: its id is free. */
    void receiptSent(RxEntry entry) {
        entry.receiptOwed = false;
        entries.remove(entry.id);
    }
}
