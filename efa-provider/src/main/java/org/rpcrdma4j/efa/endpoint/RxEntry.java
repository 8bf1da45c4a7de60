package org.rpcrdma4j.efa.endpoint;

import java.nio.ByteBuffer;
import org.rpcrdma4j.efa.EfaErrorCode;
import org.rpcrdma4j.efa.device.CompletionStatus;
import org.rpcrdma4j.efa.device.MemoryRegion;
import org.rpcrdma4j.efa.device.RmaIov;

/**
 * One receive (libfabric's rxe): posted by the application, or created by a message that arrived
 * first (unexpected), or both once matched. Its {@link #id} is the {@code recv_id} of a long-CTS
 * message (§3.2 table 3.6) and of the EOR or READ_NACK of a long-read message (§4.1, §4.7); an
 * unexpected entry has none until it is matched. {@link #sendId} is the sender's operation that a CTS,
 * EOR, READ_NACK or RECEIPT names.
 *
 * <p>Ownership: {@link #buffer} is the application's from {@code recv} until the completion is
 * written. {@link #staging} is the entry's own copy of what arrived before the match; it is
 * copied into the application's buffer at the match and dropped.
 */
final class RxEntry {

    int id = -1;
    // What the application posted.
    ByteBuffer buffer;
    long context;
    boolean tagged;
    long tag;
    long ignore;
    long source = -1;
    // What arrived.
    Peer peer;
    Protocol protocol;
    int msgId;
    long msgLength;
    long msgTag;
    boolean hasCqData;
    long cqData;
    int sendId;
    long creditRequest;
    ByteBuffer staging;
    long bytesReceived;
    /** Long-CTS: the end of the window our last CTS granted. */
    long windowEnd;
    /** Whether the entry is on the engine's list of CTS packets still to send. */
    boolean ctsPending;
    /** Runting read: the message's first bytes, which come in RUNTREAD packets (§4.5); 0 for long-read. */
    long runtLength;
    /** Runting read: runt bytes arrived so far. */
    long runtReceived;
    /** Runting read: this endpoint could not register, and answers READ_NACK once the last runt is in (§4.7). */
    boolean nackOwed;
    /** Long-read: the sender's buffer, from the RTM's read_iov (§4.1); null for a runting-read message not read. */
    RmaIov[] readIov;
    /** Long-read: the registration of the bytes of {@link #buffer} the reads fill, while they run. */
    MemoryRegion readRegion;
    /** Long-read: whether the reads have been started (or refused with a READ_NACK). */
    boolean readStarted;
    /** Long-read: the message bytes to read, those that fit the receive buffer. */
    long readEnd;
    /** Long-read: message bytes covered by reads posted so far; reads start after the runt. */
    long readPosted;
    /** Long-read: reads posted and not yet completed. */
    int readsOutstanding;
    /** Long-read: this endpoint could not read and owes (or sent) the sender a READ_NACK (§4.7). */
    boolean readNacked;
    /** Long-read: how a read of the sender's buffer failed, which the sender is told instead of the EOR; or null. */
    CompletionStatus readFailure;
    /**
     * The target of a peer's emulated write (§3.3): {@link #buffer} is the registered memory it names; no
     * receive is matched, and only a write with remote CQ data is reported.
     */
    boolean writeTarget;
    /** An emulated read's receiving half: its completion completes this operation instead. */
    TxEntry readOp;
    /**
     * A delivery-complete REQ (§4.2) started it: once the data is in place, a RECEIPT names the sender's
     * {@link #sendId} and {@link #msgId}.
     */
    boolean deliveryComplete;
    /**
     * Completed, but its RECEIPT waits for a packet buffer ({@link Receipts}): the entry keeps its id until the
     * RECEIPT goes out, so that what RECEIPTs owed hold is bounded by the RX entry table, and nothing looks it up.
     */
    boolean receiptOwed;
    /** An error to complete the receive with instead of SUCCESS or MESSAGE_TRUNCATED. */
    EfaErrorCode error = EfaErrorCode.SUCCESS;

    boolean isMatched() {
        return buffer != null;
    }

    boolean isComplete() {
        return bytesReceived >= msgLength;
    }

    /**
     * Places data at a message offset: into the application's buffer as far as it reaches, or
     * before the match into the staging copy.
     *
     * @return the bytes copied, those that fit
     */
    int place(long offset, ByteBuffer from, int fromIndex, int count) {
        final ByteBuffer into = isMatched() ? buffer : staging;
        final int copied = (int) Math.max(0, Math.min(count, into.capacity() - offset));
        if (copied > 0) {
            into.put((int) offset, from, fromIndex, copied);
        }
        bytesReceived += count;
        return copied;
    }

    /** Matches an entry to what the application posted. */
    void attach(RxEntry posted) {
        id = posted.id;
        buffer = posted.buffer;
        context = posted.context;
        tagged = posted.tagged;
        tag = posted.tag;
        ignore = posted.ignore;
        source = posted.source;
    }

    /**
     * Hands an unexpected message's staged bytes over to the receive that matched it: copies them into
     * the application's buffer, as far as it reaches, and drops the staging copy.
     *
     * @return the bytes copied
     */
    int unstage() {
        final int count = Math.min(staging.capacity(), buffer.capacity());
        buffer.put(0, staging, 0, count);
        staging = null;
        return count;
    }
}
