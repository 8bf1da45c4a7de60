package org.rpcrdma4j.efa.device;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * The SPI's checks on a post's arguments, which every {@link Device} makes alike before it looks at its
 * queues: misuse throws, as the SPI says (package documentation, "Errors"), where what the device itself
 * finds becomes a completion.
 */
public final class PostChecks {

    private PostChecks() {
    }

    /**
     * @param buffer a receive buffer
     * @throws NullPointerException     if it is null
     * @throws IllegalArgumentException if it is read-only
     */
    public static void receiveBuffer(ByteBuffer buffer) {
        Objects.requireNonNull(buffer, "buffer");
        if (buffer.isReadOnly()) {
            throw new IllegalArgumentException("a receive buffer must be writable");
        }
    }

    /**
     * @param device      the device posting
     * @param needed      the capability the operation needs
     * @param local       the local region
     * @param localOffset where in it
     * @param remote      the peer's bytes
     * @throws NullPointerException     if a region is null
     * @throws IllegalArgumentException if the offset is negative
     * @throws IllegalStateException    if the device lacks the capability: rdma-core refuses such a work request
     *                                  synchronously (EOPNOTSUPP), it is the caller's job to look first
     */
    public static void rdma(Device device, Capability needed, MemoryRegion local, long localOffset, RmaIov remote) {
        Objects.requireNonNull(local, "local");
        Objects.requireNonNull(remote, "remote");
        if (localOffset < 0) {
            throw new IllegalArgumentException("negative local offset " + localOffset);
        }
        if (!device.attributes().has(needed)) {
            throw new IllegalStateException(device + " has no " + needed + " capability");
        }
    }
}
