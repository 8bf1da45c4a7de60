package org.rpcrdma4j.fabric;

import java.nio.ByteBuffer;

/**
 * Where a fabric wants the transport's message buffers ({@link Fabric#messageBuffers}): buffers it
 * receives into and sends from without copying them. A fabric whose device reads and writes
 * registered memory (verbs RC) hands out buffers in memory it registered once; the others hand out
 * heap buffers, which they copy through packets of their own anyway. Any buffer may still be given
 * to {@link FabricConnection#postReceive} and {@link FabricConnection#send}; one from here only saves
 * the fabric a copy (as Linux's xprtrdma allocates its send and receive buffers DMA-mapped, and
 * svcrdma its receive contexts).
 *
 * <p>Thread-safe.
 */
public interface MessageBuffers {

    /** Heap buffers, released to the garbage collector: for fabrics that copy every message anyway. */
    MessageBuffers HEAP = new MessageBuffers() {

        @Override
        public ByteBuffer allocate(int size) {
            return ByteBuffer.allocate(size);
        }

        @Override
        public void release(ByteBuffer buffer) {
            // the garbage collector's
        }

        @Override
        public boolean recycles() {
            return false;
        }
    };

    /**
     * @param size the bytes the buffer must hold
     * @return a buffer of {@code size} bytes, position 0 and limit {@code size}; of the heap when the
     *     fabric has no room left in the memory it registered for messages
     */
    ByteBuffer allocate(int size);

    /**
     * Gives a buffer back once nothing (neither the caller nor the fabric) uses it any more.
     *
     * @param buffer a buffer {@link #allocate} returned, not released before
     */
    void release(ByteBuffer buffer);

    /**
     * @return whether released buffers are used again, so that a received message kept a while in its
     *     buffer costs no allocation for the receive posted in its place (registered buffers); false
     *     for {@link #HEAP}, where keeping a small message in place costs more than a copy of it
     */
    boolean recycles();
}
