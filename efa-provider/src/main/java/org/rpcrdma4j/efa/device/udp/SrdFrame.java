package org.rpcrdma4j.efa.device.udp;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The one datagram format of {@link UdpDevice}: a transport header on every datagram, then on DATA
 * frames an operation header and its payload. All fields are little endian, like the EFA RDM
 * headers the payload usually carries; the accessors set the order on the buffer they are given.
 *
 * <pre>
 *  0       2     3     4           6           8                     12
 *  +-------+-----+-----+-----------+-----------+---------------------+
 *  | magic | ver |type |   flags   | reserved  |  dest Q-Key (u32)   |
 *  +-------+-----+-----+-----------+-----------+---------------------+
 * 12                    16                    20                    24
 *  |  src Q-Key (u32)   |  stream (u32)       |  PSN (u32)          |
 * 24                    28                    32                                  40
 *  |  ack stream (u32)  |  ack PSN (u32)      |  SACK bitmap (u64)                 |
 *  +--------------------+---------------------+-----------------------------------+
 *  DATA only:
 * 40    41      42         44          48           56           64          72          80         84     88
 *  | op | status| reserved | rkey (u32)| token (u64)| addr (u64) |total (u64)|offset(u64)|length(u32)| resv |
 *  then length bytes of payload; the datagram is exactly 88 + length bytes long.
 * </pre>
 *
 * <ul>
 *   <li>{@code dest Q-Key}: the Q-Key of the queue pair the frame is for, checked on every datagram
 *       (requests by the queue pair after the transport has taken them, as SRD does; everything else
 *       by the transport).</li>
 *   <li>{@code src Q-Key}: the sender's Q-Key, which names the sender's incarnation.</li>
 *   <li>{@code stream}, {@code PSN}: the sender's sequence space towards this receiver; a new stream
 *       (a larger number, or another src Q-Key) starts again at PSN 0.</li>
 *   <li>{@code ack stream}, {@code ack PSN}, {@code SACK}: piggybacked when {@link #HAS_ACK_FLAG} is
 *       set: every PSN below {@code ack PSN} of {@code ack stream} arrived, and bit {@code i} of the
 *       bitmap says PSN {@code ack PSN + 1 + i} did.</li>
 * </ul>
 */
final class SrdFrame {

    /** "UD" in the first two bytes. */
    static final short MAGIC = 0x4455;
    /** The version of this format. */
    static final byte VERSION = 1;

    /** A frame with a PSN and an operation: delivered once, acknowledged. */
    static final byte TYPE_DATA = 1;
    /** Only the acknowledgement fields. */
    static final byte TYPE_ACK = 2;
    /** An ICMP probe towards a port nothing has answered from; ignored by a device that gets one. */
    static final byte TYPE_PROBE = 3;

    /** The acknowledgement fields are valid. */
    static final int HAS_ACK_FLAG = 1;

    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 2;
    static final int TYPE_OFFSET = 3;
    static final int FLAGS_OFFSET = 4;
    static final int DEST_QKEY_OFFSET = 8;
    static final int SRC_QKEY_OFFSET = 12;
    static final int STREAM_OFFSET = 16;
    static final int PSN_OFFSET = 20;
    static final int ACK_STREAM_OFFSET = 24;
    static final int ACK_PSN_OFFSET = 28;
    static final int SACK_OFFSET = 32;
    /** Length of the transport header, which every datagram has. */
    static final int HEADER_LENGTH = 40;

    static final int OP_OFFSET = 40;
    static final int STATUS_OFFSET = 41;
    static final int RKEY_OFFSET = 44;
    static final int TOKEN_OFFSET = 48;
    static final int ADDRESS_OFFSET = 56;
    static final int TOTAL_OFFSET = 64;
    static final int SEGMENT_OFFSET_OFFSET = 72;
    static final int PAYLOAD_LENGTH_OFFSET = 80;
    /** Length of transport plus operation header: where a DATA frame's payload starts. */
    static final int DATA_HEADER_LENGTH = 88;

    /** Bits in the SACK bitmap. */
    static final int SACK_BITS = 64;

    /** A packet of the device's user: token, payload. */
    static final byte OP_SEND = 1;
    /** An RDMA read request: token, rkey, address, total; no payload. */
    static final byte OP_READ_REQUEST = 2;
    /** A piece of an RDMA read's answer: token, offset, payload. */
    static final byte OP_READ_RESPONSE = 3;
    /** A piece of an RDMA write: token, rkey, address, total, offset, payload. */
    static final byte OP_WRITE = 4;
    /** The target's verdict on an operation: token, status. */
    static final byte OP_RESULT = 5;
    /** Nothing: asks for an acknowledgement, to learn whether a silent peer is alive. */
    static final byte OP_NOP = 6;

    private SrdFrame() {
    }

    static ByteBuffer le(ByteBuffer buffer) {
        return buffer.order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * Writes a transport header.
     *
     * @param frame the frame, little endian, from index 0
     * @param type the frame type
     * @param destQkey the Q-Key it is for
     * @param srcQkey the sender's Q-Key
     * @param stream the sender's stream, DATA only
     * @param psn the PSN, DATA only
     */
    static void writeHeader(ByteBuffer frame, byte type, int destQkey, int srcQkey, int stream, int psn) {
        frame.putShort(MAGIC_OFFSET, MAGIC);
        frame.put(VERSION_OFFSET, VERSION);
        frame.put(TYPE_OFFSET, type);
        frame.putShort(FLAGS_OFFSET, (short) 0);
        frame.putShort(FLAGS_OFFSET + 2, (short) 0);
        frame.putInt(DEST_QKEY_OFFSET, destQkey);
        frame.putInt(SRC_QKEY_OFFSET, srcQkey);
        frame.putInt(STREAM_OFFSET, stream);
        frame.putInt(PSN_OFFSET, psn);
        frame.putInt(ACK_STREAM_OFFSET, 0);
        frame.putInt(ACK_PSN_OFFSET, 0);
        frame.putLong(SACK_OFFSET, 0);
    }

    /**
     * Writes (or rewrites, before a retransmission) the acknowledgement fields.
     *
     * @param frame the frame, little endian
     * @param stream the stream acknowledged
     * @param psn every PSN below this one arrived
     * @param sack which of the next 64 arrived
     */
    static void writeAck(ByteBuffer frame, int stream, int psn, long sack) {
        frame.putShort(FLAGS_OFFSET, (short) (frame.getShort(FLAGS_OFFSET) | HAS_ACK_FLAG));
        frame.putInt(ACK_STREAM_OFFSET, stream);
        frame.putInt(ACK_PSN_OFFSET, psn);
        frame.putLong(SACK_OFFSET, sack);
    }

    /**
     * Writes an operation header.
     *
     * @param frame the frame, little endian, with its transport header
     * @param op the operation
     * @param status a completion status number, RESULT only
     * @param rkey the target's key, RDMA requests only
     * @param token the initiator's name for the operation
     * @param address the remote address, RDMA requests only
     * @param total the RDMA length, RDMA only
     * @param offset where the payload goes in the RDMA, RDMA data only
     * @param payloadLength how many payload bytes follow
     */
    static void writeOperation(ByteBuffer frame, byte op, int status, int rkey, long token, long address, long total,
                               long offset, int payloadLength) {
        frame.put(OP_OFFSET, op);
        frame.put(STATUS_OFFSET, (byte) status);
        frame.putShort(STATUS_OFFSET + 1, (short) 0);
        frame.putInt(RKEY_OFFSET, rkey);
        frame.putLong(TOKEN_OFFSET, token);
        frame.putLong(ADDRESS_OFFSET, address);
        frame.putLong(TOTAL_OFFSET, total);
        frame.putLong(SEGMENT_OFFSET_OFFSET, offset);
        frame.putInt(PAYLOAD_LENGTH_OFFSET, payloadLength);
        frame.putInt(PAYLOAD_LENGTH_OFFSET + 4, 0);
    }

    /** @return whether {@code op} names an operation a DATA frame may carry */
    static boolean isKnownOperation(byte op) {
        return op >= OP_SEND && op <= OP_NOP;
    }

    /** @return whether {@code op} asks something of the target's queue pair (and carries its Q-Key) */
    static boolean isRequest(byte op) {
        return op == OP_SEND || op == OP_READ_REQUEST || op == OP_WRITE;
    }
}
