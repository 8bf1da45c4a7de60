package org.rpcrdma4j.efa.endpoint;

import java.util.ArrayDeque;
import java.util.function.Consumer;
import org.rpcrdma4j.efa.CompletionEntry;
import org.rpcrdma4j.efa.EfaErrorCode;

/**
 * The application's completion queue. It needs no bound of its own: every entry stands for an
 * operation that held a TX or RX entry, and those tables are bounded. Only the progress thread
 * writes and polls it; {@link #size()} may be read from any thread.
 */
final class CompletionQueue {

    private final ArrayDeque<CompletionEntry> entries = new ArrayDeque<>();
    /** The entries' count, kept apart for {@link #size()} on other threads: an ArrayDeque is not theirs to read. */
    private volatile int size;

    void sendDone(TxEntry tx) {
        add(new CompletionEntry(tx.kind, tx.context, tx.error == EfaErrorCode.SUCCESS ? tx.length : 0,
                0, 0, false, tx.peer.fiAddr, tx.error));
    }

    void recvDone(RxEntry rx, long length, EfaErrorCode error) {
        add(new CompletionEntry(rx.tagged ? CompletionEntry.Kind.TAGGED_RECV : CompletionEntry.Kind.RECV,
                rx.context, length, rx.tagged ? rx.msgTag : 0, rx.hasCqData ? rx.cqData : 0, rx.hasCqData,
                rx.peer != null ? rx.peer.fiAddr : rx.source, error));
    }

    /** A peer's emulated write with remote CQ data landed (§3.3). */
    void remoteWriteDone(RxEntry rx) {
        add(new CompletionEntry(CompletionEntry.Kind.REMOTE_WRITE, 0, rx.msgLength, 0, rx.cqData, true,
                rx.peer.fiAddr, EfaErrorCode.SUCCESS));
    }

    int size() {
        return size;
    }

    int poll(Consumer<CompletionEntry> sink, int max) {
        int polled = 0;
        while (polled < max && !entries.isEmpty()) {
            final CompletionEntry entry = entries.poll();
            size--;
            sink.accept(entry);
            polled++;
        }
        return polled;
    }

    private void add(CompletionEntry entry) {
        entries.add(entry);
        size++;
    }
}
