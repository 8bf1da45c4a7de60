package org.rpcrdma4j.fabric.rc;

import java.nio.ByteBuffer;
import org.rpcrdma4j.fabric.FabricStatus;
import org.rpcrdma4j.fabric.WorkTokens;

/**
 * A connection's posted work requests by {@code wr_id} ({@link WorkTokens}): a stale or repeated
 * completion (one made up for a request the device flushed as well) finds no live record.
 */
final class PostedWork {

    /** BIND and INVALIDATE are a requester's memory window operations, which no listener hears of. */
    enum Kind { RECEIVE, SEND, READ, WRITE, BIND, INVALIDATE }

    /**
     * A posted request: what comes back, which slot it uses, and for RDMA the whole it is part of. The
     * record is the table's: read what is needed before anything can post again.
     */
    static final class Work {
        private Kind kind;
        private ByteBuffer buffer;
        private long context;
        private int slot;
        private RdmaParts parts;

        Kind kind() {
            return kind;
        }

        /** @return a receive's buffer, else null */
        ByteBuffer buffer() {
            return buffer;
        }

        /** @return the transport's context of a Send, RDMA Read or Write */
        long context() {
            return context;
        }

        /** @return the bounce slot of a receive or Send of heap memory, else -1 */
        int slot() {
            return slot;
        }

        /** @return the whole an RDMA request is part of, else null */
        RdmaParts parts() {
            return parts;
        }
    }

    /**
     * An RDMA Read or Write posted as one or more work requests, as its local bytes need more
     * scatter/gather entries than one request holds: the listener hears once, when all are back.
     */
    static final class RdmaParts {
        private int outstanding;
        private FabricStatus status = FabricStatus.SUCCESS;

        RdmaParts(int requests) {
            outstanding = requests;
        }

        /** Requests that will never be posted, so never come back. */
        void neverPosted(int requests) {
            outstanding -= requests;
        }

        /**
         * @param part how one request ended
         * @return how the whole ended once its last request is back, else null: the first failure, one
         *     that is not a flush if there is one (what follows a failed request is flushed)
         */
        FabricStatus completed(FabricStatus part) {
            if (!part.ok() && (status.ok() || status == FabricStatus.FLUSHED)) {
                status = part;
            }
            return --outstanding == 0 ? status : null;
        }
    }

    private final WorkTokens<Work> table = new WorkTokens<>(Work::new);

    /**
     * @return the new request's {@code wr_id}
     */
    long add(Kind kind, ByteBuffer buffer, long context, int slot, RdmaParts parts) {
        long wrId = table.take();
        Work work = table.record(wrId);
        work.kind = kind;
        work.buffer = buffer;
        work.context = context;
        work.slot = slot;
        work.parts = parts;
        return wrId;
    }

    /**
     * Takes a request out of the table: its record is free for the next post.
     *
     * @return the request, or null if {@code wrId} names no live one
     */
    Work remove(long wrId) {
        return table.remove(wrId);
    }

    /** @return whether no request is outstanding */
    boolean isEmpty() {
        return table.isEmpty();
    }

    /** @return the {@code wr_id}s of the requests outstanding now */
    long[] outstanding() {
        return table.tokens();
    }
}
