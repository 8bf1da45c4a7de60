package org.rpcrdma4j.fabric;

import org.rpcrdma4j.xdr.Segment;

/**
 * Local memory registered with a {@link Fabric}: the handle peers present and the 64-bit address of
 * its first byte, which RPC-over-RDMA carries as a segment's {@code rdma_handle} and
 * {@code rdma_offset} (RFC 8166 §3.4.3).
 *
 * @param handle  the handle (R_key, EFA key), u32
 * @param address the address of the first byte, u64, opaque to peers
 * @param length  the bytes registered
 */
public record Registration(int handle, long address, long length) {

    /**
     * Names bytes of this registration for a peer.
     *
     * @param offset where they start, from the first byte
     * @param count  how many; at most 2^32 - 1
     * @return the RDMA segment
     * @throws IllegalArgumentException if the bytes are not all registered
     */
    public Segment segment(long offset, long count) {
        if (offset < 0 || count < 0 || offset + count > length) {
            throw new IllegalArgumentException("[" + offset + ", +" + count + ") is outside a registration of "
                    + length + " bytes");
        }
        return new Segment(handle, (int) count, address + offset);
    }
}
