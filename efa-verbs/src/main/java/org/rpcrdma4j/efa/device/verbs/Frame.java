package org.rpcrdma4j.efa.device.verbs;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The header the verbs device puts before every message it sends over an RC connection, 16 bytes,
 * little endian. RC acknowledges a Send when the peer's NIC has taken it into a receive of the shared
 * receive queue, not when the peer's endpoint has taken it, so the device answers each DATA with a
 * RESULT carrying the receiver's verdict (delivered, receiver not ready, buffer too short), and the
 * sender's SPI completion waits for it: the EFA device's send completion is that verdict too.
 *
 * <pre>
 *  0      1      2             4                     8                     12                    16
 *  | type | vers | status (u16) | Q-Key (u32)         | sequence (u32)      | reserved, 0         |
 * </pre>
 *
 * DATA: the Q-Key the sender named (the receiver drops a DATA with another, as an EFA queue pair
 * drops a packet with another Q-Key), the sender's sequence number; the packet follows. RESULT: the
 * status ({@code CompletionStatus} number) for the DATA with that sequence number; nothing follows.
 */
final class Frame {

    static final byte TYPE_DATA = 1;
    static final byte TYPE_RESULT = 2;
    static final byte VERSION = 1;

    static final int TYPE_OFFSET = 0;
    static final int VERSION_OFFSET = 1;
    static final int STATUS_OFFSET = 2;
    static final int QKEY_OFFSET = 4;
    static final int SEQUENCE_OFFSET = 8;
    static final int HEADER_LENGTH = 16;

    private Frame() {
    }

    /** Writes a DATA header at the buffer's start; the packet goes at {@link #HEADER_LENGTH}. */
    static void writeData(ByteBuffer slot, int qkey, int sequence) {
        write(slot, TYPE_DATA, 0, qkey, sequence);
    }

    /** Writes a whole RESULT frame at the buffer's start. */
    static void writeResult(ByteBuffer slot, int status, int sequence) {
        write(slot, TYPE_RESULT, status, 0, sequence);
    }

    private static void write(ByteBuffer slot, byte type, int status, int qkey, int sequence) {
        final ByteBuffer le = slot.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        le.put(TYPE_OFFSET, type).put(VERSION_OFFSET, VERSION).putShort(STATUS_OFFSET, (short) status)
                .putInt(QKEY_OFFSET, qkey).putInt(SEQUENCE_OFFSET, sequence).putInt(12, 0);
    }

    /**
     * @param frame  a received message, from its first byte
     * @param length its length
     * @return its type, or 0 if it is no frame of this version: too short, another version, an unknown
     *     type, a RESULT with bytes after its header
     */
    static byte check(ByteBuffer frame, int length) {
        if (length < HEADER_LENGTH || frame.get(VERSION_OFFSET) != VERSION) {
            return 0;
        }
        final byte type = frame.get(TYPE_OFFSET);
        return type == TYPE_DATA || (type == TYPE_RESULT && length == HEADER_LENGTH) ? type : 0;
    }

    static int status(ByteBuffer frame) {
        return frame.getShort(STATUS_OFFSET) & 0xFFFF;
    }

    static int qkey(ByteBuffer frame) {
        return frame.getInt(QKEY_OFFSET);
    }

    static int sequence(ByteBuffer frame) {
        return frame.getInt(SEQUENCE_OFFSET);
    }
}
