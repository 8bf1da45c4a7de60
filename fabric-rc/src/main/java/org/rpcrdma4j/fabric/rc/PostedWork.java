package org.rpcrdma4j.fabric.rc;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.rpcrdma4j.fabric.FabricStatus;

/**
 * A connection's posted work requests by {@code wr_id}, as the kernel's {@code ib_cqe} makes the
 * completion find its request: each record is reused, its {@code wr_id} its index in the table and a
 * generation, so posting allocates nothing once the table has grown to the connection's depth, and a
 * stale or repeated completion (one made up for a request the device flushed as well) finds no live
 * record instead of another request's.
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
        private int generation;
        private boolean live;

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

    private Work[] table = new Work[16];
    private int[] free = new int[16];
    private int freeCount;
    private int used;
    private int live;

    /**
     * @return the new request's {@code wr_id}
     */
    long add(Kind kind, ByteBuffer buffer, long context, int slot, RdmaParts parts) {
        int index;
        if (freeCount > 0) {
            index = free[--freeCount];
        } else {
            if (used == table.length) {
                table = Arrays.copyOf(table, used * 2);
                free = Arrays.copyOf(free, used * 2);
            }
            index = used++;
            table[index] = new Work();
        }
        Work work = table[index];
        work.kind = kind;
        work.buffer = buffer;
        work.context = context;
        work.slot = slot;
        work.parts = parts;
        work.generation++;
        work.live = true;
        live++;
        return (long) work.generation << 32 | index;
    }

    /**
     * Takes a request out of the table: its record is free for the next post.
     *
     * @return the request, or null if {@code wrId} names no live one
     */
    Work remove(long wrId) {
        int index = (int) wrId;
        if (index < 0 || index >= used) {
            return null;
        }
        Work work = table[index];
        if (!work.live || work.generation != (int) (wrId >>> 32)) {
            return null;
        }
        work.live = false;
        free[freeCount++] = index;
        live--;
        return work;
    }

    /** @return whether no request is outstanding */
    boolean isEmpty() {
        return live == 0;
    }

    /** @return the {@code wr_id}s of the requests outstanding now */
    long[] outstanding() {
        long[] ids = new long[live];
        int n = 0;
        for (int i = 0; i < used; i++) {
            Work work = table[i];
            if (work.live) {
                ids[n++] = (long) work.generation << 32 | i;
            }
        }
        return ids;
    }
}
