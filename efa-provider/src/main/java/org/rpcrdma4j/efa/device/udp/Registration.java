package org.rpcrdma4j.efa.device.udp;

import java.nio.ByteBuffer;
import org.rpcrdma4j.efa.device.MemoryRegion;

/**
 * A memory registration of a {@link UdpDevice}: the region peers name and the bytes it covers (a
 * slice from the registered buffer's position to its limit). The I/O thread reads and writes the
 * bytes for peers' RDMA; it makes its own slices, so the shared one is never moved.
 *
 * @param region the region
 * @param memory the bytes
 */
record Registration(MemoryRegion region, ByteBuffer memory) {
}
