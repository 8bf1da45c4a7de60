package org.rpcrdma4j.efa.endpoint;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Matches arriving messages with posted receives, in posting order, and keeps the messages that
 * arrive first in the unexpected queue, in arrival order (EFA RDM protocol v4 §3.2, eager tip 3;
 * the libfabric programmer's guide, "Tagged Messages"). Untagged and tagged traffic are matched
 * separately. A tagged receive matches a tag when the bits outside its ignore mask are equal; a
 * directed receive matches only its source. Progress thread only, but for
 * {@link #unexpectedCount()}, which any thread may read.
 */
final class RxMatcher {

    private final ArrayDeque<RxEntry> postedMsg = new ArrayDeque<>();
    private final ArrayDeque<RxEntry> postedTagged = new ArrayDeque<>();
    private final ArrayDeque<RxEntry> unexpectedMsg = new ArrayDeque<>();
    private final ArrayDeque<RxEntry> unexpectedTagged = new ArrayDeque<>();
    /** Both unexpected queues' length, kept apart for other threads: an ArrayDeque is not theirs to read. */
    private volatile int unexpectedMessages;

    /** @return the first posted receive that takes this message, removed from the list, or null */
    RxEntry takePosted(Peer peer, boolean tagged, long tag) {
        final Iterator<RxEntry> it = (tagged ? postedTagged : postedMsg).iterator();
        while (it.hasNext()) {
            final RxEntry posted = it.next();
            if (matches(posted, peer, tagged, tag)) {
                it.remove();
                return posted;
            }
        }
        return null;
    }

    /** @return the oldest unexpected message this receive takes, removed from the queue, or null */
    RxEntry takeUnexpected(RxEntry posted) {
        final Iterator<RxEntry> it = (posted.tagged ? unexpectedTagged : unexpectedMsg).iterator();
        while (it.hasNext()) {
            final RxEntry message = it.next();
            if (matches(posted, message.peer, posted.tagged, message.msgTag)) {
                it.remove();
                countUnexpected();
                return message;
            }
        }
        return null;
    }

    /** @return the posted receive with this context, removed from its list, or null if none waits */
    RxEntry takePosted(long context) {
        for (ArrayDeque<RxEntry> list : List.of(postedMsg, postedTagged)) {
            final Iterator<RxEntry> it = list.iterator();
            while (it.hasNext()) {
                final RxEntry posted = it.next();
                if (posted.context == context) {
                    it.remove();
                    return posted;
                }
            }
        }
        return null;
    }

    void addPosted(RxEntry posted) {
        (posted.tagged ? postedTagged : postedMsg).add(posted);
    }

    void addUnexpected(RxEntry message, boolean tagged) {
        (tagged ? unexpectedTagged : unexpectedMsg).add(message);
        countUnexpected();
    }

    /**
     * Takes out the receives posted for this peer only and the unexpected messages from it.
     *
     * @param posted receives the directed receives taken out
     * @param unexpected receives the unexpected messages taken out
     */
    void forget(Peer peer, Consumer<RxEntry> posted, Consumer<RxEntry> unexpected) {
        takeAll(postedMsg, entry -> entry.source == peer.fiAddr, posted);
        takeAll(postedTagged, entry -> entry.source == peer.fiAddr, posted);
        takeAll(unexpectedMsg, entry -> entry.peer == peer, unexpected);
        takeAll(unexpectedTagged, entry -> entry.peer == peer, unexpected);
        countUnexpected();
    }

    /**
     * Takes out the tagged receives posted for exactly this tag (no ignore bits) and the unexpected
     * messages on it.
     *
     * @param posted receives the receives taken out
     * @param unexpected receives the unexpected messages taken out
     */
    void closeTag(long tag, Consumer<RxEntry> posted, Consumer<RxEntry> unexpected) {
        takeAll(postedTagged, entry -> entry.tag == tag && entry.ignore == 0, posted);
        takeAll(unexpectedTagged, entry -> entry.msgTag == tag, unexpected);
        countUnexpected();
    }

    /** Empties every list: the endpoint is closing. */
    void clear() {
        postedMsg.clear();
        postedTagged.clear();
        unexpectedMsg.clear();
        unexpectedTagged.clear();
        countUnexpected();
    }

    int unexpectedCount() {
        return unexpectedMessages;
    }

    private void countUnexpected() {
        unexpectedMessages = unexpectedMsg.size() + unexpectedTagged.size();
    }

    private static void takeAll(ArrayDeque<RxEntry> list, Predicate<RxEntry> which,
                                Consumer<RxEntry> sink) {
        final Iterator<RxEntry> it = list.iterator();
        while (it.hasNext()) {
            final RxEntry entry = it.next();
            if (which.test(entry)) {
                it.remove();
                sink.accept(entry);
            }
        }
    }

    private static boolean matches(RxEntry posted, Peer peer, boolean tagged, long tag) {
        if (posted.source >= 0 && posted.source != peer.fiAddr) {
            return false;
        }
        return !tagged || ((posted.tag ^ tag) & ~posted.ignore) == 0;
    }
}
