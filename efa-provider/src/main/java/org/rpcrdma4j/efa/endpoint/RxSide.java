package org.rpcrdma4j.efa.endpoint;

import java.nio.ByteBuffer;
import org.rpcrdma4j.efa.EfaErrorCode;
import org.rpcrdma4j.efa.EndpointCounter;
import org.rpcrdma4j.efa.wire.DecodedPacket;
import org.rpcrdma4j.efa.wire.PacketFlags;
import org.rpcrdma4j.efa.wire.ReqOptionalHeadersFlyweight;

/**
 * The receive operations: posting a receive, a message arriving (matched or unexpected), data
 * placed, the long-CTS window moving on, the long-read reads starting once matched, and the
 * completion. The subprotocol classes call in here
 * with what their packets say; the matching itself is {@link RxMatcher}'s.
 */
final class RxSide {

    private final ReqOptionalHeadersFlyweight optional = new ReqOptionalHeadersFlyweight();
    private final RxMatcher matcher = new RxMatcher();
    private final IdTable<RxEntry> entries;
    private final CompletionQueue cq;
    private final Counters counters;
    private LongCtsReceiver longCts;
    private LongReadReceiver longRead;

    RxSide(int rxEntryCount, CompletionQueue cq, Counters counters) {
        this.entries = new IdTable<>(rxEntryCount);
        this.cq = cq;
        this.counters = counters;
    }

    void subprotocols(LongCtsReceiver longCtsReceiver, LongReadReceiver longReadReceiver) {
        longCts = longCtsReceiver;
        longRead = longReadReceiver;
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
            posted.id = message.id;
            message.attach(posted);
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
        final RxEntry message = new RxEntry();
        message.peer = peer;
        message.protocol = protocol;
        message.msgId = msgId;
        message.msgTag = tag;
        message.msgLength = msgLength;
        if (packet.hasFlag(PacketFlags.REQ_OPT_CQ_DATA_HDR_FLAG)) {
            message.hasCqData = true;
            message.cqData = optional.wrap(buffer, packet.optionalHeadersOffset(), packet.flags()).cqData();
        }
        final RxEntry posted = matcher.takePosted(peer, tagged, tag);
        if (posted != null) {
            message.attach(posted);
            entries.replace(posted.id, message);
        } else {
            final int id = entries.add(message);
            if (id < 0) {
                counters.increment(EndpointCounter.UNEXPECTED_DROPPED_MESSAGES);
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

    /** @return the matched long-CTS receive a CTSDATA names, or null */
    RxEntry longCtsEntry(Peer peer, long recvId) {
        final RxEntry entry = entries.get(recvId);
        return entry != null && entry.peer == peer && entry.protocol == Protocol.LONG_CTS && entry.isMatched()
                ? entry : null;
    }

    /** @return the matched long-read receive a read's work-request id names, or null */
    RxEntry longReadEntry(int recvId) {
        final RxEntry entry = entries.get(recvId);
        return entry != null && entry.protocol == Protocol.LONG_READ && entry.readStarted ? entry : null;
    }

    /**
     * Data was placed or the message matched: complete the receive, grant the next long-CTS
     * window, or start reading a long-read message (§4.1: only once a receive has matched it).
     */
    void afterData(RxEntry entry) {
        if (!entry.isMatched()) {
            return;
        }
        if (entry.isComplete()) {
            complete(entry);
        } else if (entry.protocol == Protocol.LONG_CTS && entry.bytesReceived >= entry.windowEnd) {
            longCts.sendCts(entry);
        } else if (entry.protocol == Protocol.LONG_READ && !entry.readStarted) {
            longRead.start(entry);
        }
    }

    int unexpectedCount() {
        return matcher.unexpectedCount();
    }

    private void complete(RxEntry entry) {
        final long capacity = entry.buffer.capacity();
        final boolean truncated = entry.msgLength > capacity;
        final EfaErrorCode error = entry.error != EfaErrorCode.SUCCESS ? entry.error
                : truncated ? EfaErrorCode.MESSAGE_TRUNCATED : EfaErrorCode.SUCCESS;
        cq.recvDone(entry, Math.min(entry.msgLength, capacity), error);
        entries.remove(entry.id);
        if (entry.protocol == Protocol.MEDIUM) {
            entry.peer.mediumInProgress.remove(entry.msgId);
        }
    }
}
