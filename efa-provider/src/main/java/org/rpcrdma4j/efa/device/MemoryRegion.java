package org.rpcrdma4j.efa.device;

import java.util.Objects;
import java.util.Set;

/**
 * A registration of local memory, made by {@link Device#registerMemory}: a key, the device-chosen
 * 64-bit address of its first byte, its length and the access it grants. Peers name bytes in it
 * by (key, address) as in {@code efa_rma_iov}; RPC-over-RDMA's {@code rdma_handle} and
 * {@code rdma_offset} carry the same two values (RFC 8166 §3.4.3; docs/ARCHITECTURE.md, "The fabric seam").
 *
 * <p>Addresses are u64 values held in a {@code long}: compare them with
 * {@link Long#compareUnsigned(long, long)}, as {@link #contains(long, long)} does.
 *
 * @param key the key (lkey and rkey, u32) peers must present
 * @param address the address of the first byte, u64
 * @param length the number of bytes
 * @param access the rights granted
 */
public record MemoryRegion(int key, long address, long length, Set<Access> access) {

    /**
     * Checks and copies the components.
     *
     * @param key the key (lkey and rkey, u32) peers must present
     * @param address the address of the first byte, u64
     * @param length the number of bytes
     * @param access the rights granted
     * @throws IllegalArgumentException if the length is negative or the region wraps past 2^64
     */
    public MemoryRegion {
        if (length < 0) {
            throw new IllegalArgumentException("negative region length " + length);
        }
        if (address != 0 && Long.compareUnsigned(length, -address) > 0) {
            throw new IllegalArgumentException("region at 0x" + Long.toHexString(address) + " of "
                    + length + " bytes wraps past 2^64");
        }
        access = Set.copyOf(Objects.requireNonNull(access, "access"));
    }

    /**
     * Whether {@code [start, start + count)} lies inside this region. Computed without overflow:
     * {@code start} is unsigned, so a start below the region or a count reaching past its end is
     * refused however large the values are.
     *
     * @param start the address of the first byte, u64
     * @param count the number of bytes
     * @return whether all the bytes are in the region; {@code false} for a negative count
     */
    public boolean contains(long start, long count) {
        if (count < 0 || Long.compareUnsigned(start, address) < 0) {
            return false;
        }
        final long offset = start - address;
        return Long.compareUnsigned(offset, length) <= 0 && count <= length - offset;
    }

    /**
     * Names bytes of this region for a peer, the way the region's owner advertises it.
     *
     * @param offset where the bytes start, from the first byte of the region
     * @param count the number of bytes
     * @return the remote descriptor (address, length, key)
     * @throws IllegalArgumentException if the bytes are not all in the region
     */
    public RmaIov iov(long offset, long count) {
        if (offset < 0 || !contains(address + offset, count)) {
            throw new IllegalArgumentException("[" + offset + ", +" + count + ") is outside a region of "
                    + length + " bytes");
        }
        return new RmaIov(address + offset, count, key);
    }

    @Override
    public String toString() {
        return "MemoryRegion[key=0x" + Integer.toHexString(key) + ", address=0x" + Long.toHexString(address)
                + ", length=" + length + ", access=" + access + "]";
    }
}
