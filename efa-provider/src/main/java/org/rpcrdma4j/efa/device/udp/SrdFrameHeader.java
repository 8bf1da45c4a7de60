package org.rpcrdma4j.efa.device.udp;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;
import org.rpcrdma4j.efa.device.CompletionStatus;
import org.rpcrdma4j.efa.device.udp.SrdFrameDecodeException.Rule;

/**
 * The headers of one datagram of {@link UdpDevice}'s format ({@code SrdFrame}, whose layout its Javadoc
 * draws), decoded for tools that read captures of the device's traffic. The device itself reads its
 * datagrams in place; this record makes the same checks it makes before it drops one, but not those
 * that need its state (Q-Keys, peers, windows).
 *
 * @param type          the frame type
 * @param flags         the flags field, with {@link #hasAck()} its one flag
 * @param destQkey      the Q-Key of the queue pair the frame is for
 * @param srcQkey       the sender's Q-Key
 * @param stream        DATA: the sender's stream towards this receiver
 * @param psn           DATA: the frame's PSN in that stream
 * @param ackStream     with an acknowledgement: the stream acknowledged
 * @param ackPsn        with an acknowledgement: every PSN below this one arrived
 * @param sack          with an acknowledgement: bit {@code i} says PSN {@code ackPsn + 1 + i} arrived
 * @param op            DATA: the operation; {@code null} for other types
 * @param status        RESULT: the target's verdict; {@code null} otherwise
 * @param rkey          RDMA read request and write: the target's key
 * @param token         DATA: the initiator's name for the operation
 * @param address       RDMA read request and write: the remote address
 * @param total         RDMA: the length of the whole read or write
 * @param offset        RDMA write and read response: where this frame's payload goes in it
 * @param payloadLength DATA: the bytes after the headers, from {@link #PAYLOAD_OFFSET}
 */
public record SrdFrameHeader(Type type, int flags, long destQkey, long srcQkey, long stream, long psn,
                             long ackStream, long ackPsn, long sack, Operation op, CompletionStatus status,
                             long rkey, long token, long address, long total, long offset, int payloadLength) {

    /** Where a DATA frame's payload starts, from the datagram's first byte. */
    public static final int PAYLOAD_OFFSET = SrdFrame.DATA_HEADER_LENGTH;

    /** The frame types. */
    public enum Type {
        /** A frame with a PSN and an operation: delivered once, acknowledged. */
        DATA(SrdFrame.TYPE_DATA),
        /** Only an acknowledgement. */
        ACK(SrdFrame.TYPE_ACK),
        /** A probe towards a port nothing has answered from. */
        PROBE(SrdFrame.TYPE_PROBE);

        private final byte id;

        Type(byte id) {
            this.id = id;
        }

        static Type fromId(byte id) {
            for (Type type : values()) {
                if (type.id == id) {
                    return type;
                }
            }
            return null;
        }
    }

    /** The operations a DATA frame carries. */
    public enum Operation {
        /** A packet of the device's user (on the EFA endpoint, an EFA RDM packet) as payload. */
        SEND(SrdFrame.OP_SEND),
        /** An RDMA read request; no payload. */
        READ_REQUEST(SrdFrame.OP_READ_REQUEST),
        /** A piece of an RDMA read's answer. */
        READ_RESPONSE(SrdFrame.OP_READ_RESPONSE),
        /** A piece of an RDMA write. */
        WRITE(SrdFrame.OP_WRITE),
        /** The target's verdict on a send, read or write (an RNR is {@code REMOTE_ERROR_RNR}). */
        RESULT(SrdFrame.OP_RESULT),
        /** Nothing: asks for an acknowledgement. */
        NOP(SrdFrame.OP_NOP);

        private final byte id;

        Operation(byte id) {
            this.id = id;
        }

        static Operation fromId(byte id) {
            for (Operation op : values()) {
                if (op.id == id) {
                    return op;
                }
            }
            return null;
        }
    }

    /**
     * Decodes a datagram's headers, checking each rule of {@link Rule} before anything is read that
     * depends on it.
     *
     * @param buffer the datagram's buffer; its byte order is left alone
     * @param offset the index of the datagram's first byte
     * @param length the datagram's length
     * @return its headers
     * @throws SrdFrameDecodeException if it breaks a rule
     * @throws IndexOutOfBoundsException if the range lies outside the buffer's limit
     */
    public static SrdFrameHeader decode(ByteBuffer buffer, int offset, int length) throws SrdFrameDecodeException {
        Objects.checkFromIndexSize(offset, length, buffer.limit());
        ByteBuffer d = buffer.slice(offset, length).order(ByteOrder.LITTLE_ENDIAN);
        if (length < SrdFrame.HEADER_LENGTH) {
            throw new SrdFrameDecodeException(Rule.TRUNCATED, "datagram of " + length + " bytes is shorter than the "
                    + SrdFrame.HEADER_LENGTH + "-byte transport header");
        }
        if (d.getShort(SrdFrame.MAGIC_OFFSET) != SrdFrame.MAGIC) {
            throw new SrdFrameDecodeException(Rule.BAD_MAGIC, String.format("magic 0x%04x is not 0x%04x (\"UD\")",
                    d.getShort(SrdFrame.MAGIC_OFFSET) & 0xFFFF, SrdFrame.MAGIC));
        }
        if (d.get(SrdFrame.VERSION_OFFSET) != SrdFrame.VERSION) {
            throw new SrdFrameDecodeException(Rule.BAD_VERSION, "version " + (d.get(SrdFrame.VERSION_OFFSET) & 0xFF)
                    + " is not " + SrdFrame.VERSION);
        }
        Type type = Type.fromId(d.get(SrdFrame.TYPE_OFFSET));
        if (type == null) {
            throw new SrdFrameDecodeException(Rule.UNKNOWN_TYPE, "frame type " + (d.get(SrdFrame.TYPE_OFFSET) & 0xFF)
                    + " is none of DATA (1), ACK (2), PROBE (3)");
        }
        int flags = d.getShort(SrdFrame.FLAGS_OFFSET) & 0xFFFF;
        boolean hasAck = (flags & SrdFrame.HAS_ACK_FLAG) != 0;
        if (type == Type.ACK && !hasAck) {
            throw new SrdFrameDecodeException(Rule.NO_ACK, "ACK frame without the has-ack flag (flags " + flags + ")");
        }
        long ackStream = hasAck ? u32(d, SrdFrame.ACK_STREAM_OFFSET) : 0;
        long ackPsn = hasAck ? u32(d, SrdFrame.ACK_PSN_OFFSET) : 0;
        long sack = hasAck ? d.getLong(SrdFrame.SACK_OFFSET) : 0;
        if (type != Type.DATA) {
            return new SrdFrameHeader(type, flags, u32(d, SrdFrame.DEST_QKEY_OFFSET), u32(d, SrdFrame.SRC_QKEY_OFFSET),
                    0, 0, ackStream, ackPsn, sack, null, null, 0, 0, 0, 0, 0, 0);
        }
        if (length < SrdFrame.DATA_HEADER_LENGTH) {
            throw new SrdFrameDecodeException(Rule.TRUNCATED, "DATA frame of " + length + " bytes is shorter than its "
                    + SrdFrame.DATA_HEADER_LENGTH + "-byte headers");
        }
        long payloadLength = u32(d, SrdFrame.PAYLOAD_LENGTH_OFFSET);
        if (payloadLength != length - SrdFrame.DATA_HEADER_LENGTH) {
            throw new SrdFrameDecodeException(Rule.PAYLOAD_LENGTH, "payload length " + payloadLength + " is not the "
                    + (length - SrdFrame.DATA_HEADER_LENGTH) + " bytes after the headers");
        }
        Operation op = Operation.fromId(d.get(SrdFrame.OP_OFFSET));
        if (op == null) {
            throw new SrdFrameDecodeException(Rule.UNKNOWN_OP, "operation " + (d.get(SrdFrame.OP_OFFSET) & 0xFF)
                    + " is not one of 1 to 6");
        }
        CompletionStatus status = null;
        if (op == Operation.RESULT) {
            int value = d.get(SrdFrame.STATUS_OFFSET) & 0xFF;
            status = CompletionStatus.fromValue(value);
            if (status == null) {
                throw new SrdFrameDecodeException(Rule.UNKNOWN_STATUS, "status " + value + " is not a completion status");
            }
        }
        long total = d.getLong(SrdFrame.TOTAL_OFFSET);
        long segment = d.getLong(SrdFrame.SEGMENT_OFFSET_OFFSET);
        // As the device checks a write's segments (SrdEngine.onWriteSegment), unsigned: no RDMA is 2^63 long.
        if ((op == Operation.WRITE || op == Operation.READ_RESPONSE)
                && (total < 0 || segment < 0 || segment > total || payloadLength > total - segment)) {
            throw new SrdFrameDecodeException(Rule.SEGMENT_RANGE, payloadLength + " bytes at offset "
                    + Long.toUnsignedString(segment) + " do not lie within total " + Long.toUnsignedString(total));
        }
        return new SrdFrameHeader(type, flags, u32(d, SrdFrame.DEST_QKEY_OFFSET), u32(d, SrdFrame.SRC_QKEY_OFFSET),
                u32(d, SrdFrame.STREAM_OFFSET), u32(d, SrdFrame.PSN_OFFSET), ackStream, ackPsn, sack, op, status,
                u32(d, SrdFrame.RKEY_OFFSET), d.getLong(SrdFrame.TOKEN_OFFSET), d.getLong(SrdFrame.ADDRESS_OFFSET),
                total, segment, (int) payloadLength);
    }

    /** @return whether the acknowledgement fields are valid */
    public boolean hasAck() {
        return (flags & SrdFrame.HAS_ACK_FLAG) != 0;
    }

    /** @return whether the payload is a packet of the device's user: a SEND's, from {@link #PAYLOAD_OFFSET} */
    public boolean carriesPacket() {
        return op == Operation.SEND;
    }

    private static long u32(ByteBuffer d, int at) {
        return Integer.toUnsignedLong(d.getInt(at));
    }
}
