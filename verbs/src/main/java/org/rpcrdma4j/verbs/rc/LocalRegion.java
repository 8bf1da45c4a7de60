package org.rpcrdma4j.verbs.rc;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Set;
import org.rpcrdma4j.transport.MemoryAccess;
import org.rpcrdma4j.transport.Registration;

/**
 * Memory the transport registered through {@link RcFabric#register}. A direct buffer is registered
 * where it is. A heap buffer, which a device cannot address, gets a native copy that is registered
 * instead: its bytes are copied in at registration, and the bytes the device or a peer put into the
 * copy are copied back ({@link #copyBack}) when the transport may look at them: at the completion of
 * an RDMA Read into it, and when a received message names the segments a peer RDMA-Wrote into it.
 *
 * @param registration the transport's view
 * @param memory       the registered native memory
 * @param device       the device's registration of it
 * @param heap         the transport's heap buffer (its bytes between position and limit), or null
 * @param arena        owns the native copy, or null
 * @param access       the rights granted
 */
record LocalRegion(Registration registration, MemorySegment memory, RcDevice.Memory device, ByteBuffer heap,
                   Arena arena, Set<MemoryAccess> access) {

    /** @return whether a peer may write into it while the transport holds a heap view of it */
    boolean shadowedRemoteWrite() {
        return heap != null && access.contains(MemoryAccess.REMOTE_WRITE);
    }

    /**
     * Copies bytes of the native copy back into the heap buffer; a direct buffer needs nothing.
     *
     * @param offset from the first registered byte
     * @param length bytes
     */
    void copyBack(long offset, long length) {
        if (heap == null) {
            return;
        }
        MemorySegment.copy(memory, offset, MemorySegment.ofBuffer(heap), offset, length);
    }
}
