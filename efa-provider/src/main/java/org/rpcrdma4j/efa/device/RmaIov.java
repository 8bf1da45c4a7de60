package org.rpcrdma4j.efa.device;

/**
 * Remote memory as the initiator of an RDMA read or write names it: address, length and key, the
 * fields of {@code efa_rma_iov} (EFA RDM protocol v4 §3 and §4). The target checks the key,
 * the bounds and the access right on every access.
 *
 * @param address the address of the first byte in the target's registration, u64
 * @param length the number of bytes
 * @param key the key of the target's registration, u32
 */
public record RmaIov(long address, long length, int key) {

    /**
     * Checks the length.
     *
     * @param address the address of the first byte in the target's registration, u64
     * @param length the number of bytes
     * @param key the key of the target's registration, u32
     * @throws IllegalArgumentException if the length is negative
     */
    public RmaIov {
        if (length < 0) {
            throw new IllegalArgumentException("negative RMA length " + length);
        }
    }

    @Override
    public String toString() {
        return "RmaIov[address=0x" + Long.toHexString(address) + ", length=" + length + ", key=0x"
                + Integer.toHexString(key) + "]";
    }
}
