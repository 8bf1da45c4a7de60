package org.rpcrdma4j.efa.wire;

import java.nio.ByteBuffer;

/**
 * The PEER_ERROR header, packet type 12, present only on libfabric main after v2.6.0 (DISCREPANCIES.md
 * B7).
 *
 * <p>A peer reports a failed operation with it. The header is 20 bytes, not a multiple of 8, and the
 * EFA RDM protocol v4 document does not describe it.
 *
 * <pre>
 *  0       1       2       3       4       5       6       7
 * +-------+-------+---------------+-------------------------------+
 * |  type |version|     flags     |             op_id             |   0
 * +-------------------------------+-------------------------------+
 * |            ref_kind           |           prov_errno          |   8
 * +-------------------------------+
 * |             connid            |  16
 * +-------------------------------+
 * </pre>
 *
 * <p>The first four bytes are the base header, read and written through {@link BaseHeaderFlyweight}.
 * Accessors trust the layout: run {@link PacketDecoder} on received bytes before wrapping them.
 */
public final class PeerErrorFlyweight {

    /** Offset of {@code op_id} (u32). */
    public static final int OP_ID_OFFSET = 4;

    /** Offset of {@code ref_kind} (u32). */
    public static final int REF_KIND_OFFSET = 8;

    /** Offset of {@code prov_errno} (u32). */
    public static final int PROV_ERRNO_OFFSET = 12;

    /** Offset of {@code connid} (u32). */
    public static final int CONNID_OFFSET = 16;

    /** Length of the header in bytes. */
    public static final int HEADER_LENGTH = 20;

    /** {@code ref_kind}: {@code op_id} is the index of an operation entry. */
    public static final int REF_OPE_INDEX = 0;

    /** {@code ref_kind}: {@code op_id} is a message id. */
    public static final int REF_MSG_ID = 1;

    /** {@code ref_kind}: {@code op_id} is a message id the receiver must skip. */
    public static final int REF_MSG_ID_SKIP = 2;

    private ByteBuffer buffer;
    private int offset;

    /**
     * Points this flyweight at the first byte of the packet.
     *
     * @param buffer the buffer holding the bytes; its byte order does not matter, fields are little endian
     * @param offset the index of the first byte of the packet in {@code buffer}
     * @return this flyweight
     */
    public PeerErrorFlyweight wrap(ByteBuffer buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /**
     * Returns {@code op_id}: the id of the failed operation, interpreted according to {@code ref_kind}.
     *
     * @return a u32 widened to a long
     */
    public long opId() {
        return LittleEndian.getU32(buffer, offset + OP_ID_OFFSET);
    }

    /**
     * Sets {@code op_id}.
     *
     * @param value the new value, in [0, 0xffffffff]
     * @return this flyweight
     */
    public PeerErrorFlyweight opId(long value) {
        LittleEndian.putU32(buffer, offset + OP_ID_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code ref_kind}: what {@code op_id} refers to: one of the {@code REF_*} constants.
     *
     * @return a u32 widened to a long
     */
    public long refKind() {
        return LittleEndian.getU32(buffer, offset + REF_KIND_OFFSET);
    }

    /**
     * Sets {@code ref_kind}.
     *
     * @param value the new value, in [0, 0xffffffff]
     * @return this flyweight
     */
    public PeerErrorFlyweight refKind(long value) {
        LittleEndian.putU32(buffer, offset + REF_KIND_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code prov_errno}: the provider error number that describes the failure.
     *
     * @return a u32 widened to a long
     */
    public long provErrno() {
        return LittleEndian.getU32(buffer, offset + PROV_ERRNO_OFFSET);
    }

    /**
     * Sets {@code prov_errno}.
     *
     * @param value the new value, in [0, 0xffffffff]
     * @return this flyweight
     */
    public PeerErrorFlyweight provErrno(long value) {
        LittleEndian.putU32(buffer, offset + PROV_ERRNO_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code connid}: the sender's connection id when the {@code CONNID_HDR} flag is set,
     * otherwise padding (protocol section 4.4).
     *
     * @return a u32 widened to a long
     */
    public long connid() {
        return LittleEndian.getU32(buffer, offset + CONNID_OFFSET);
    }

    /**
     * Sets {@code connid}.
     *
     * @param value the new value, in [0, 0xffffffff]
     * @return this flyweight
     */
    public PeerErrorFlyweight connid(long value) {
        LittleEndian.putU32(buffer, offset + CONNID_OFFSET, value);
        return this;
    }
}
