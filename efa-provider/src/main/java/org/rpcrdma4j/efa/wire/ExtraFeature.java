package org.rpcrdma4j.efa.wire;

/**
 * The extra features and extra requests a HANDSHAKE advertises in its {@code extra_info} bit array
 * (protocol section 2.1, table 2.1; IDs 7 to 9 are missing from the table, DISCREPANCIES.md B5).
 *
 * <p>Feature {@code i} is bit {@code i % 64} of {@code extra_info[i / 64]}. A feature tells what the
 * sender can do; a request (the two {@code *_HEADER*} constants) tells what it wants its peers to do.
 */
public enum ExtraFeature {
    /** Feature 0: RDMA read based transfers (long-read and runting-read, section 4.1). */
    RDMA_READ(0),
    /** Feature 1: delivery complete, the DC packet types and RECEIPT (section 4.2). */
    DELIVERY_COMPLETE(1),
    /** Request 2: keep the REQ header length constant by always sending the raw address (section 4.3). */
    CONSTANT_HEADER_LENGTH(2),
    /** Request 3: put the connid in packet headers (section 4.4); baseline since libfabric v2.6.0. */
    CONNID_HEADER(3),
    /** Feature 4: runting read (section 4.5). */
    RUNT(4),
    /** Feature 5: RDMA write (section 4.6). */
    RDMA_WRITE(5),
    /** Feature 6: READ_NACK for long-read and runting-read (section 4.7). */
    READ_NACK(6),
    /** Request 7: the peer should send to the user receive QP (DISCREPANCIES.md B5). */
    REQUEST_USER_RECV_QP(7),
    /** Feature 8: receiving RDMA write with immediate data without a posted receive (DISCREPANCIES.md B5). */
    UNSOLICITED_WRITE_RECV(8),
    /** Feature 9: the PEER_ERROR packet; libfabric main after v2.6.0 only (DISCREPANCIES.md B5). */
    PEER_ERROR(9);

    private final int bitId;

    ExtraFeature(int bitId) {
        this.bitId = bitId;
    }

    /**
     * Returns the ID the protocol assigned to this feature or request.
     *
     * @return the bit number across the whole {@code extra_info} array
     */
    public int bitId() {
        return bitId;
    }

    /**
     * Returns the {@code extra_info} word that holds this feature's bit.
     *
     * @return {@code bitId / 64}
     */
    public int wordIndex() {
        return bitId >>> 6;
    }

    /**
     * Returns the mask of this feature's bit within its {@code extra_info} word.
     *
     * @return {@code 1 << (bitId % 64)}
     */
    public long mask() {
        return 1L << (bitId & 63);
    }
}
