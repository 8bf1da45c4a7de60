package org.rpcrdma4j.transport.oncrpc;

import org.dcache.oncrpc4j.grizzly.GrizzlyMemoryManager;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.HeapBuffer;
import org.glassfish.grizzly.memory.MemoryManager;
import org.glassfish.grizzly.memory.MemoryProbe;
import org.glassfish.grizzly.monitoring.MonitoringConfig;

/**
 * Grizzly's heap memory manager, as oncrpc4j's {@code Xdr} uses it, but one that also grows a buffer it
 * did not allocate: a {@link CallXdr}'s reply is encoded into a wrapped message buffer, direct memory
 * on verbs RC, which Grizzly's heap manager refuses to reallocate. Such a buffer is grown as the heap
 * manager grows its own: into a new heap buffer holding the bytes encoded so far, so that a reply
 * that outgrows its message buffer still lies in one buffer.
 */
@SuppressWarnings({"rawtypes", "unchecked"})
final class ReplyMemoryManager implements MemoryManager<Buffer> {

    static final ReplyMemoryManager INSTANCE = new ReplyMemoryManager();

    private final MemoryManager heap = GrizzlyMemoryManager.getDefaultMemoryManager();

    private ReplyMemoryManager() {
    }

    @Override
    public Buffer allocate(int size) {
        return heap.allocate(size);
    }

    @Override
    public Buffer allocateAtLeast(int size) {
        return heap.allocateAtLeast(size);
    }

    @Override
    public Buffer reallocate(Buffer old, int size) {
        if (old instanceof HeapBuffer) {
            return heap.reallocate(old, size);
        }
        Buffer grown = heap.allocate(size);
        old.flip();
        return grown.put(old);
    }

    @Override
    public void release(Buffer buffer) {
        if (buffer instanceof HeapBuffer) {
            heap.release(buffer);
        }
    }

    @Override
    public boolean willAllocateDirect(int size) {
        return false;
    }

    @Override
    public MonitoringConfig<MemoryProbe> getMonitoringConfig() {
        return heap.getMonitoringConfig();
    }
}
