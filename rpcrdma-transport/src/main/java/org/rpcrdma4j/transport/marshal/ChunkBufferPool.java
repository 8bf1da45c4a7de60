package org.rpcrdma4j.transport.marshal;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The requester's memory behind the Write chunks and the Reply chunk of its calls: buffers by size
 * class (powers of two from {@value #MIN_CLASS} bytes), reused from call to call instead of a new
 * zeroed array per call, as Linux xprtrdma keeps an {@code rpcrdma_req}'s buffers from one RPC to the
 * next. A buffer taken from the pool is not zeroed: the responder may only write into it (the chunk
 * is registered with REMOTE_WRITE alone) and the requester reads only the bytes the reply echoes as
 * written.
 *
 * <h2>Buffer ownership</h2>
 * {@link #take} leases a buffer to one call. The lease goes back to the pool ({@link Lease#giveBack})
 * only once nothing can read or write the buffer any more:
 * <ol>
 * <li>the fabric: only after the call's chunks are deregistered ({@link ChunkedCall#release}), when
 *     a peer's RDMA Write can no longer reach it (its key is gone; a registration made again of the
 *     same buffer has a new key);</li>
 * <li>the reader of the reply: when the reply has been decoded, or at once when there is no reply
 *     to read (an RDMA_ERROR, a reply that cannot be used, a call that timed out, failed or is sent
 *     again on a new connection).</li>
 * </ol>
 * A decoder that keeps a view of the buffer ({@link Lease#keep}: oncrpc4j's {@code xdrDecodeByteBuffer}
 * returns one) gets a copy of the bytes when they fill at most half the buffer, and the buffer itself
 * otherwise: it is then the caller's and never returns ({@link Lease#handOver}), exactly as before
 * there was a pool. A lease whose reply is never decoded is never given back; the garbage collector
 * takes the buffer. So a buffer is returned at most once, and never while anything may read it.
 *
 * <p>The pool is bounded: it keeps at most {@code maxIdleBytes} of idle buffers; a buffer given back
 * beyond that is dropped. Thread-safe: buffers are taken on the progress thread and given back there
 * or on the thread that decodes the reply.
 */
public final class ChunkBufferPool {

    /** The smallest size class, bytes. */
    public static final int MIN_CLASS = 4096;
    /** The idle bytes a requester's pool keeps by default: one largest I/O of the default configuration. */
    public static final long DEFAULT_MAX_IDLE_BYTES = 16L << 20;
    private static final int MIN_SHIFT = Integer.numberOfTrailingZeros(MIN_CLASS);
    /** Size classes up to 2^30 bytes; a larger buffer is allocated for its call alone. */
    private static final int MAX_SHIFT = 30;

    private final long maxIdleBytes;
    @SuppressWarnings("unchecked")
    private final ArrayDeque<ByteBuffer>[] idle = new ArrayDeque[MAX_SHIFT - MIN_SHIFT + 1];
    private long idleBytes;
    private int idleBuffers;
    private long allocated;
    private long reused;
    private long dropped;
    private long handedOver;
    private long copiedOut;

    /**
     * @param maxIdleBytes the most bytes of idle buffers kept; 0 keeps none
     */
    public ChunkBufferPool(long maxIdleBytes) {
        if (maxIdleBytes < 0) {
            throw new IllegalArgumentException("maxIdleBytes " + maxIdleBytes + " is negative");
        }
        this.maxIdleBytes = maxIdleBytes;
        for (int i = 0; i < idle.length; i++) {
            idle[i] = new ArrayDeque<>();
        }
    }

    /**
     * Leases a buffer of at least {@code length} bytes, an idle one of its size class if there is one.
     *
     * @param length the bytes needed, already checked against the configured largest I/O
     * @return the lease; its {@link Lease#memory} has at least {@code length} bytes, contents undefined
     */
    public Lease take(int length) {
        if (length < 0) {
            throw new IllegalArgumentException("length " + length + " is negative");
        }
        int shift = shift(length);
        if (shift > MAX_SHIFT) {
            synchronized (this) {
                allocated++;
            }
            return new Lease(ByteBuffer.allocate(length));
        }
        synchronized (this) {
            ByteBuffer buffer = idle[shift - MIN_SHIFT].pollLast();
            if (buffer != null) {
                idleBytes -= buffer.capacity();
                idleBuffers--;
                reused++;
                return new Lease(buffer.clear());
            }
            allocated++;
        }
        return new Lease(ByteBuffer.allocate(1 << shift));
    }

    /**
     * What a decoder may keep of bytes it found in a leased buffer: a copy when they fill at most
     * half of it (the lease can then go back), else the bytes themselves, the buffer handed over.
     */
    private ByteBuffer keep(Lease lease, ByteBuffer view) {
        if (view.remaining() <= lease.buffer.capacity() / 2) {
            int from = view.arrayOffset() + view.position();
            ByteBuffer copy = ByteBuffer.wrap(Arrays.copyOfRange(view.array(), from, from + view.remaining()));
            synchronized (this) {
                copiedOut += copy.remaining();
            }
            return copy;
        }
        lease.handOver();
        return view;
    }

    private synchronized void give(ByteBuffer buffer) {
        int shift = Integer.numberOfTrailingZeros(buffer.capacity());
        if (buffer.capacity() != 1 << shift || shift < MIN_SHIFT || shift > MAX_SHIFT
                || idleBytes + buffer.capacity() > maxIdleBytes) {
            dropped++;
            return;
        }
        idle[shift - MIN_SHIFT].addLast(buffer);
        idleBytes += buffer.capacity();
        idleBuffers++;
    }

    private synchronized void onHandedOver() {
        handedOver++;
    }

    private static int shift(int length) {
        return Math.max(MIN_SHIFT, 32 - Integer.numberOfLeadingZeros(Math.max(length, 1) - 1));
    }

    /** @return idle buffers the pool holds now */
    public synchronized int idleBuffers() {
        return idleBuffers;
    }

    /** @return bytes of idle buffers the pool holds now, at most the bound */
    public synchronized long idleBytes() {
        return idleBytes;
    }

    /** @return buffers allocated because no idle one of the size class was there */
    public synchronized long allocated() {
        return allocated;
    }

    /** @return leases served by an idle buffer */
    public synchronized long reused() {
        return reused;
    }

    /** @return buffers given back and dropped because the pool was at its bound */
    public synchronized long dropped() {
        return dropped;
    }

    /** @return buffers handed over to a decoder that kept a view of most of them */
    public synchronized long handedOver() {
        return handedOver;
    }

    /** @return bytes copied out of leased buffers for decoders that kept a short view */
    public synchronized long copiedOutBytes() {
        return copiedOut;
    }

    /** One call's buffer, from {@link #take} until it goes back to the pool or for good to its reader. */
    public final class Lease {

        private static final int LEASED = 0;
        private static final int RETURNED = 1;
        private static final int HANDED_OVER = 2;

        private final ByteBuffer buffer;
        private final AtomicInteger state = new AtomicInteger(LEASED);

        private Lease(ByteBuffer buffer) {
            this.buffer = buffer;
        }

        /** @return the whole buffer, position 0, limit its capacity; its contents are undefined */
        public ByteBuffer memory() {
            return buffer;
        }

        /**
         * @param view bytes a decoder found
         * @return whether they lie in this lease's buffer
         */
        public boolean holds(ByteBuffer view) {
            return view.hasArray() && view.array() == buffer.array();
        }

        /**
         * @param view bytes a decoder wants to keep beyond the decoding, lying in this buffer
         * @return what it may keep: a copy of them when they fill at most half the buffer, else the
         *     bytes themselves, the buffer then the decoder's for good
         */
        public ByteBuffer keep(ByteBuffer view) {
            if (!holds(view)) {
                throw new IllegalArgumentException("not bytes of this lease: " + view);
            }
            return ChunkBufferPool.this.keep(this, view);
        }

        /** The buffer is its reader's for good: it never goes back to the pool. */
        public void handOver() {
            if (state.compareAndSet(LEASED, HANDED_OVER)) {
                onHandedOver();
            }
        }

        /**
         * Gives the buffer back to the pool: call once nothing can read or write it any more. Does
         * nothing after the first call or once handed over.
         *
         * @return whether the buffer went back (it may still be dropped at the pool's bound)
         */
        public boolean giveBack() {
            if (!state.compareAndSet(LEASED, RETURNED)) {
                return false;
            }
            give(buffer);
            return true;
        }

        /** @return whether the lease has ended: given back or handed over */
        public boolean ended() {
            return state.get() != LEASED;
        }
    }
}
