package org.rpcrdma4j.efa.wire;

import java.nio.ByteBuffer;

/**
 * The WRITE_RTA, FETCH_RTA, COMPARE_RTA and DC_WRITE_RTA mandatory headers, packet types 74, 75, 76
 * and 141 (protocol section 3.3, tables 3.13 and 3.14).
 *
 * <p>Offset 20 is a union (DISCREPANCIES.md C): {@code padding} in WRITE_RTA, {@code recv_id} in
 * FETCH_RTA and COMPARE_RTA, {@code send_id} in DC_WRITE_RTA. The operands follow the optional
 * headers; COMPARE_RTA carries the buffer and then the compare data.
 *
 * <pre>
 *  0       1       2       3       4       5       6       7
 * +-------+-------+---------------+-------------------------------+
 * |  type |version|     flags     |             msg_id            |   0
 * +-------------------------------+-------------------------------+
 * |         rma_iov_count         |        atomic_datatype        |   8
 * +-------------------------------+-------------------------------+
 * |           atomic_op           |  padding / recv_id / send_id  |  16
 * +-------------------------------+-------------------------------+
 * followed by rma_iov[rma_iov_count] ({@link RmaIovFlyweight}, 24 bytes each)
 * </pre>
 *
 * <p>The first four bytes are the base header, read and written through {@link BaseHeaderFlyweight}.
 * Accessors trust the layout: run {@link PacketDecoder} on received bytes before wrapping them.
 */
public final class RtaFlyweight {

    /** Offset of {@code msg_id} (u32). */
    public static final int MSG_ID_OFFSET = 4;

    /** Offset of {@code rma_iov_count} (u32). */
    public static final int RMA_IOV_COUNT_OFFSET = 8;

    /** Offset of {@code atomic_datatype} (u32). */
    public static final int ATOMIC_DATATYPE_OFFSET = 12;

    /** Offset of {@code atomic_op} (u32). */
    public static final int ATOMIC_OP_OFFSET = 16;

    /** Offset of {@code padding} (u32). */
    public static final int PADDING_OFFSET = 20;

    /** Offset of {@code recv_id} (u32). */
    public static final int RECV_ID_OFFSET = 20;

    /** Offset of {@code send_id} (u32). */
    public static final int SEND_ID_OFFSET = 20;

    /** Length of the header in bytes. */
    public static final int HEADER_LENGTH = 24;

    /** Offset of the {@code rma_iov} array, right after the fixed fields (24 bytes per entry). */
    public static final int RMA_IOV_OFFSET = HEADER_LENGTH;

    private ByteBuffer buffer;
    private int offset;

    /**
     * Points this flyweight at the first byte of the packet.
     *
     * @param buffer the buffer holding the bytes; its byte order does not matter, fields are little endian
     * @param offset the index of the first byte of the packet in {@code buffer}
     * @return this flyweight
     */
    public RtaFlyweight wrap(ByteBuffer buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /**
     * Returns {@code msg_id}: the sender's per-peer message sequence number, which wraps at 2^32.
     *
     * @return a u32 widened to a long
     */
    public long msgId() {
        return LittleEndian.getU32(buffer, offset + MSG_ID_OFFSET);
    }

    /**
     * Sets {@code msg_id}.
     *
     * @param value the new value, in [0, 0xffffffff]
     * @return this flyweight
     */
    public RtaFlyweight msgId(long value) {
        LittleEndian.putU32(buffer, offset + MSG_ID_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code rma_iov_count}: the number of {@code efa_rma_iov} entries that describe the target
     * buffer.
     *
     * @return a u32 widened to a long
     */
    public long rmaIovCount() {
        return LittleEndian.getU32(buffer, offset + RMA_IOV_COUNT_OFFSET);
    }

    /**
     * Sets {@code rma_iov_count}.
     *
     * @param value the new value, in [0, 0xffffffff]
     * @return this flyweight
     */
    public RtaFlyweight rmaIovCount(long value) {
        LittleEndian.putU32(buffer, offset + RMA_IOV_COUNT_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code atomic_datatype}: the libfabric {@code fi_datatype} of the atomic operands.
     *
     * @return a u32 widened to a long
     */
    public long atomicDatatype() {
        return LittleEndian.getU32(buffer, offset + ATOMIC_DATATYPE_OFFSET);
    }

    /**
     * Sets {@code atomic_datatype}.
     *
     * @param value the new value, in [0, 0xffffffff]
     * @return this flyweight
     */
    public RtaFlyweight atomicDatatype(long value) {
        LittleEndian.putU32(buffer, offset + ATOMIC_DATATYPE_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code atomic_op}: the libfabric {@code fi_op} of the atomic operation.
     *
     * @return a u32 widened to a long
     */
    public long atomicOp() {
        return LittleEndian.getU32(buffer, offset + ATOMIC_OP_OFFSET);
    }

    /**
     * Sets {@code atomic_op}.
     *
     * @param value the new value, in [0, 0xffffffff]
     * @return this flyweight
     */
    public RtaFlyweight atomicOp(long value) {
        LittleEndian.putU32(buffer, offset + ATOMIC_OP_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code padding}: unused in WRITE_RTA; the provider never writes it.
     *
     * @return a u32 widened to a long
     */
    public long padding() {
        return LittleEndian.getU32(buffer, offset + PADDING_OFFSET);
    }

    /**
     * Sets {@code padding}.
     *
     * @param value the new value, in [0, 0xffffffff]
     * @return this flyweight
     */
    public RtaFlyweight padding(long value) {
        LittleEndian.putU32(buffer, offset + PADDING_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code recv_id}: in FETCH_RTA and COMPARE_RTA, the requester's operation id, echoed in
     * ATOMRSP.
     *
     * @return a u32 widened to a long
     */
    public long recvId() {
        return LittleEndian.getU32(buffer, offset + RECV_ID_OFFSET);
    }

    /**
     * Sets {@code recv_id}.
     *
     * @param value the new value, in [0, 0xffffffff]
     * @return this flyweight
     */
    public RtaFlyweight recvId(long value) {
        LittleEndian.putU32(buffer, offset + RECV_ID_OFFSET, value);
        return this;
    }

    /**
     * Returns {@code send_id}: in DC_WRITE_RTA, the requester's operation id, echoed in RECEIPT.
     *
     * @return a u32 widened to a long
     */
    public long sendId() {
        return LittleEndian.getU32(buffer, offset + SEND_ID_OFFSET);
    }

    /**
     * Sets {@code send_id}.
     *
     * @param value the new value, in [0, 0xffffffff]
     * @return this flyweight
     */
    public RtaFlyweight sendId(long value) {
        LittleEndian.putU32(buffer, offset + SEND_ID_OFFSET, value);
        return this;
    }

    /**
     * Returns the index of entry {@code index} of the {@code rma_iov} array, to wrap with {@link RmaIovFlyweight}.
     *
     * @param index the entry, below {@code rma_iov_count}
     * @return the index of the entry in the buffer
     */
    public int rmaIovOffset(int index) {
        return offset + RMA_IOV_OFFSET + index * RmaIovFlyweight.LENGTH;
    }
}
