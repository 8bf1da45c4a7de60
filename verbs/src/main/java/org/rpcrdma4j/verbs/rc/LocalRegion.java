package org.rpcrdma4j.verbs.rc;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Set;
import org.rpcrdma4j.transport.MemoryAccess;
import org.rpcrdma4j.transport.Registration;

/**
 * Memory the transport registered through {@link RcFabric#register}, in one of three ways: a block of
 * a {@link ChunkPool}, a native copy of a heap buffer with a registration of its own, or a direct
 * buffer registered where it is; memory a peer reaches on a connection with windows is always a
 * copy, reached through a window of that connection. A copy holds the caller's
 * bytes from registration on ({@link #copyIn}); what the device or a peer put into it goes back into
 * the caller's buffer at deregistration ({@link #copyOut}), which is when the seam says the caller
 * may look: the fabric never reads messages to find out earlier.
 *
 * @param registration the transport's view
 * @param memory       the registered native memory the device reads and writes
 * @param device       the device's registration it lies in (a pool slab's, or its own)
 * @param caller       the caller's bytes (position to limit at registration) when {@code memory} is a
 *                     copy of them, or null when it is the caller's memory itself
 * @param arena        owns a native copy registered on its own, or null
 * @param block        the pool block {@code memory} lies in, or null
 * @param access       the rights granted
 * @param connection   the connection whose window the peer reaches it through, or null
 * @param window       that window, or null when the peer uses the registration's own key (or none)
 */
record LocalRegion(Registration registration, MemorySegment memory, RcDevice.Memory device, ByteBuffer caller,
                   Arena arena, ChunkPool.Block block, Set<MemoryAccess> access, RcConnection connection,
                   ChunkWindows.Window window) {

    /** Puts the caller's bytes into the copy, so that what nobody writes reads back unchanged. */
    void copyIn() {
        if (caller != null) {
            MemorySegment.copy(MemorySegment.ofBuffer(caller), 0, memory, 0, caller.remaining());
        }
    }

    /** Puts what the device or a peer may have written into the copy back into the caller's buffer. */
    void copyOut() {
        if (caller != null && (access.contains(MemoryAccess.LOCAL_WRITE) || access.contains(MemoryAccess.REMOTE_WRITE))) {
            MemorySegment.copy(memory, 0, MemorySegment.ofBuffer(caller), 0, caller.remaining());
        }
    }
}
