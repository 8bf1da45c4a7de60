package org.rpcrdma4j.efa.endpoint;

import java.util.ArrayDeque;
import org.rpcrdma4j.efa.CompletionEntry;
import org.rpcrdma4j.efa.EfaErrorCode;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.device.CompletionStatus;

/**
 * The send operations: TX entries by id, the list of entries with packets still to build, turning
 * their data into packets as packet buffers allow, and the send completions that finish them.
 *
 * <p>Back-pressure runs through the pending list: a message whose packets cannot all be built
 * (packet pool empty, peer in backoff, long-CTS window used up) stays on it and continues where
 * it stopped (EFA RDM protocol v4 §3.2, medium "partial send"). Only a full TX entry table is
 * reported to the application, as EAGAIN. A peer holds at most {@code packetsPerPeer} packet
 * buffers, so one that stops receiving cannot drain the pool the others need.
 */
final class TxSide {

    private final ArrayDeque<TxEntry> pending = new ArrayDeque<>();
    private final IdTable<TxEntry> entries;
    private final PacketPool packets;
    private final TxQueue txQueue;
    private final CompletionQueue cq;
    private final Counters counters;
    private final int packetsPerPeer;
    private EagerRtm eager;
    private MediumRtm medium;
    private LongCtsSender longCts;
    private LongReadSender longRead;
    private RuntRead runtRead;
    private EagerRtw eagerRtw;
    private LongCtsRtw longCtsRtw;
    private LongReadRtw longReadRtw;
    private EmulatedRead emulatedRead;
    private ReadResponder readResponder;
    private EmulatedAtomic atomic;
    private AtomicResponder atomicResponder;
    private long nowNs;

    TxSide(IdTable<TxEntry> entries, PacketPool packets, TxQueue txQueue, CompletionQueue cq, Counters counters,
           int packetsPerPeer) {
        this.entries = entries;
        this.packets = packets;
        this.txQueue = txQueue;
        this.cq = cq;
        this.counters = counters;
        this.packetsPerPeer = packetsPerPeer;
    }

    void subprotocols(EagerRtm eagerRtm, MediumRtm mediumRtm, LongCtsSender longCtsSender,
                      LongReadSender longReadSender, RuntRead runtReadRtm) {
        eager = eagerRtm;
        medium = mediumRtm;
        longCts = longCtsSender;
        longRead = longReadSender;
        runtRead = runtReadRtm;
    }

    void rmaSubprotocols(EagerRtw eager, LongCtsRtw longCtsWrite, LongReadRtw longReadWrite, EmulatedRead read,
                         ReadResponder responder) {
        eagerRtw = eager;
        longCtsRtw = longCtsWrite;
        longReadRtw = longReadWrite;
        emulatedRead = read;
        readResponder = responder;
    }

    void atomicSubprotocols(EmulatedAtomic initiator, AtomicResponder responder) {
        atomic = initiator;
        atomicResponder = responder;
    }

    void now(long value) {
        nowNs = value;
    }

    /** @return false if the TX entry table is full (EAGAIN) */
    boolean register(TxEntry entry) {
        final int id = entries.add(entry);
        if (id < 0) {
            return false;
        }
        entry.id = id;
        entry.peer.txEntries++;
        return true;
    }

    /** Puts a message on the pending list and builds what can be built at once. */
    void start(TxEntry entry) {
        markPending(entry);
        progress();
    }

    void markPending(TxEntry entry) {
        if (!entry.pending) {
            entry.pending = true;
            pending.add(entry);
        }
    }

    /** @return whether no operation has packets left to build */
    boolean idle() {
        return pending.isEmpty();
    }

    /** @return how many packets were built */
    int progress() {
        int built = 0;
        for (int n = pending.size(); n > 0 && packets.available() > 0; n--) {
            final TxEntry entry = pending.poll();
            if (mayBuild(entry) && !entry.peer.backoff.isActive(nowNs)) {
                while (hasPacketToBuild(entry) && entry.peer.packetsHeld < packetsPerPeer) {
                    final PacketEntry packet = packets.acquire();
                    if (packet == null) {
                        break;
                    }
                    packet.assign(entry.peer);
                    packet.tx = entry;
                    switch (entry.protocol) {
                        case EAGER -> eager.build(packet, entry);
                        case MEDIUM -> medium.build(packet, entry);
                        case LONG_CTS -> longCts.build(packet, entry);
                        case LONG_READ -> longRead.build(packet, entry);
                        case RUNT_READ -> runtRead.build(packet, entry);
                        case EAGER_RTW -> eagerRtw.build(packet, entry);
                        case LONGCTS_RTW -> longCtsRtw.build(packet, entry);
                        case LONGREAD_RTW -> longReadRtw.build(packet, entry);
                        case SHORT_RTR, LONGCTS_RTR -> emulatedRead.build(packet, entry);
                        case READ_RESPONSE -> readResponder.build(packet, entry);
                        case WRITE_RTA, FETCH_RTA, COMPARE_RTA -> atomic.build(packet, entry);
                        case ATOMIC_RESPONSE -> atomicResponder.build(packet, entry);
                        default -> throw new IllegalStateException(entry.protocol + " builds no packets");
                    }
                    entry.packetsOutstanding++;
                    txQueue.send(packet);
                    built++;
                }
            }
            if (mayBuild(entry) && hasPacketToBuild(entry)) {
                pending.add(entry);
            } else {
                entry.pending = false;
            }
        }
        return built;
    }

    /** A packet's SEND completion. RNR is absorbed: the packet goes back on a queue. */
    void onSendCompleted(PacketEntry packet, CompletionStatus status) {
        final TxEntry entry = packet.tx;
        if (status == CompletionStatus.REMOTE_ERROR_RNR) {
            if (!txQueue.onRnr(packet) && entry != null) {
                // Dropped for a peer that ended, perhaps before its teardown has run: the operation
                // fails, and may have waited only for this packet.
                if (entry.error == EfaErrorCode.SUCCESS) {
                    entry.error = entry.peer.failure();
                }
                finishIfDone(entry);
            }
            return;
        }
        if (packet.runt) {
            entry.runtDone(packet.dataLength);
        }
        if (status == CompletionStatus.OK) {
            txQueue.onAccepted(packet.peer);
        } else if (entry == null) {
            // §2.3: a HANDSHAKE or CTS to a peer that has gone is normal; nobody waits for it.
            counters.increment(EndpointCounter.CONTROL_SEND_ERRORS);
        } else if (entry.error == EfaErrorCode.SUCCESS) {
            entry.error = EfaErrorCode.of(status);
        }
        packets.release(packet);
        if (entry != null) {
            entry.packetsOutstanding--;
            finishIfDone(entry);
        }
    }

    /** An RDMA read or write completed. */
    void onRmaCompleted(long wrId, CompletionStatus status) {
        final TxEntry entry = entries.get(wrId);
        if (entry == null || !entry.rmaPosted) {
            return;
        }
        entry.rmaPosted = false;
        if (entry.error == EfaErrorCode.SUCCESS) {
            entry.error = EfaErrorCode.of(status);
        }
        complete(entry);
    }

    /**
     * Ends every operation with a peer that is no longer active, with the peer's failure. One
     * that still has work on the device completes when that work does, so that its id is not
     * reused while a device completion may still name it. The caller has dropped the peer's
     * queued packets first.
     */
    void forget(Peer peer) {
        for (int id = 0; id < entries.capacity(); id++) {
            final TxEntry entry = entries.get(id);
            if (entry != null && entry.peer == peer && !entry.completed) {
                entry.error = peer.failure();
                longRead.release(entry);
                if (entry.packetsOutstanding == 0 && !entry.rmaPosted) {
                    complete(entry);
                }
            }
        }
    }

    /** Ends every operation: the endpoint is closing and its device will complete nothing more. */
    void cancelAll() {
        for (int id = 0; id < entries.capacity(); id++) {
            final TxEntry entry = entries.get(id);
            if (entry != null) {
                entry.error = EfaErrorCode.CANCELED;
                complete(entry);
            }
        }
        pending.clear();
    }

    /** Fails an operation started with a peer that is no longer active, at once. */
    void failAtStart(TxEntry entry) {
        fail(entry, entry.peer.failure());
    }

    /** The operation ends now with an error found by the provider. */
    void fail(TxEntry entry, EfaErrorCode error) {
        entry.error = error;
        complete(entry);
    }

    /** A CTS granted a window, or a READ_NACK turned the message into long-CTS: it has packets to build. */
    void onWindow(TxEntry entry) {
        markPending(entry);
    }

    /**
     * A long-read message's or write's EOR arrived (§4.1), an emulated read's data, an atomic's ATOMRSP, or a DC
     * variant's RECEIPT (§4.2): the operation completes unless a packet of it is still in flight.
     */
    void finish(TxEntry entry) {
        finishIfDone(entry);
    }

    /**
     * The peer reported the operation failed (PEER_ERROR): it reads nothing more, so a long-read's registration
     * goes at once; the operation ends once none of its packets is in flight.
     */
    void abort(TxEntry entry, EfaErrorCode error) {
        if (entry.error == EfaErrorCode.SUCCESS) {
            entry.error = error;
        }
        longRead.release(entry);
        finishIfDone(entry);
    }

    /**
     * @return the operation with the peer in progress under an id the peer was given as a {@code send_id}
     *     (long-CTS and long-read messages and writes, runting-read messages the peer reads, and every DC
     *     variant) or {@code recv_id} (fetch and compare atomics), or null
     */
    TxEntry awaitingPeer(Peer peer, long id) {
        final TxEntry entry = entries.get(id);
        return entry != null && entry.peer == peer && !entry.completed && !entry.internal
                && (LongCtsSender.sendsCtsData(entry.protocol) || entry.awaitsEor() || entry.awaitsReceipt()
                        || entry.awaitingResponse) ? entry : null;
    }

    /**
     * The operation a RECEIPT names (§4.2), by its {@code send_id}, whatever its kind: one with the peer that
     * runs a DC variant, has put all its data in packets (no target can have it all before) and has had no
     * RECEIPT yet; a message's {@code msg_id} must match too (a write has none on the wire).
     *
     * @return the operation, or null
     */
    TxEntry awaitingReceipt(Peer peer, long sendId, int msgId) {
        final TxEntry entry = awaitingPeer(peer, sendId);
        return entry != null && entry.awaitsReceipt() && !entry.receiptReceived && entry.reqBuilt
                && entry.bytesBuilt == entry.length && (!isMessage(entry) || entry.msgId == msgId) ? entry : null;
    }

    private static boolean isMessage(TxEntry entry) {
        return entry.kind == CompletionEntry.Kind.SEND || entry.kind == CompletionEntry.Kind.TAGGED_SEND;
    }

    private void finishIfDone(TxEntry entry) {
        if (!entry.completed && (entry.isDone()
                || (entry.error != EfaErrorCode.SUCCESS && entry.packetsOutstanding == 0))) {
            complete(entry);
        }
    }

    private void complete(TxEntry entry) {
        // A long-read send that ends in an error still holds its registration, a runting-read one its runt budget.
        longRead.release(entry);
        entry.runtDone(entry.runtInFlight);
        entry.completed = true;
        entry.peer.txEntries--;
        if (!entry.internal) {
            cq.sendDone(entry);
        }
        entries.remove(entry.id);
    }

    private static boolean mayBuild(TxEntry entry) {
        return !entry.completed && entry.error == EfaErrorCode.SUCCESS && entry.peer.isActive();
    }

    private static boolean hasPacketToBuild(TxEntry entry) {
        return switch (entry.protocol) {
            case EAGER -> !entry.reqBuilt;
            case MEDIUM -> !entry.reqBuilt || entry.bytesBuilt < entry.length;
            case RUNT_READ -> entry.bytesBuilt < entry.runtLength;
            case LONG_CTS, LONGCTS_RTW, READ_RESPONSE -> LongCtsSender.hasPacketToBuild(entry);
            case LONG_READ, EAGER_RTW, LONGREAD_RTW, SHORT_RTR, LONGCTS_RTR, WRITE_RTA, FETCH_RTA, COMPARE_RTA,
                 ATOMIC_RESPONSE -> !entry.reqBuilt;
            default -> false;
        };
    }
}
