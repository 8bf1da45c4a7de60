package org.rpcrdma4j.testbed.nfs;

import java.nio.ByteBuffer;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Direct buffers READ data is read into and sent from, as a zero-copy server sends page-cache pages
 * (Linux nfsd splices them to the socket, svcrdma RDMA-Writes them): the file is read once into a
 * buffer, the reply carries it as it is (oncrpc4j's shallow encoding) and it comes back when the
 * transport disposes the reply, which oncrpc4j's TCP transport does once it is written and rpcrdma4j
 * once it is conveyed. A buffer that does not come back is left to the garbage collector; at most
 * {@code kept} wait here for reuse.
 */
final class ReadBuffers {

    private final int size;
    private final BlockingQueue<ByteBuffer> free;

    /**
     * @param size the bytes of each buffer, the largest READ
     * @param kept how many free buffers are kept for reuse
     */
    ReadBuffers(int size, int kept) {
        this.size = size;
        this.free = new ArrayBlockingQueue<>(kept);
    }

    /**
     * @param count the bytes to read, at most the buffers' size
     * @return a buffer with room for exactly {@code count} bytes
     */
    ByteBuffer take(int count) {
        ByteBuffer buffer = free.poll();
        return (buffer == null ? ByteBuffer.allocateDirect(size) : buffer).clear().limit(count);
    }

    /** @param buffer a buffer from {@link #take}, no longer used */
    void give(ByteBuffer buffer) {
        // Beyond the bound it is left to the garbage collector.
        free.offer(buffer);
    }
}
