package org.rpcrdma4j.xdr;

import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.Optional;

/**
 * RPC-over-RDMA connection private data (RFC 8797): what each peer tells the other when a connection
 * is set up, so that both may use inline thresholds above the 1024-byte default.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |                    Format Identifier (0xf6ab0e18)             |
 * +---------------+---------------+---------------+---------------+
 * |  Version (1)  |     Flags     |   Send Size   | Receive Size  |
 * +---------------+---------------+---------------+---------------+
 * </pre>
 *
 * Sizes are encoded as {@code size / 1024 - 1}, so 1 KiB to 256 KiB in steps of 1 KiB. Flag bit 0 says
 * the sender accepts Send With Invalidate. Linux's client sends {@code f6ab0e18 01 01 03 03}.
 *
 * @param remoteInvalidate true when the sender accepts Send With Invalidate (flag bit 0)
 * @param maxSendSize      the largest Send the sender will post, in bytes
 * @param maxRecvSize      the largest Send the sender can receive: its inline receive threshold
 */
public record ConnectPrivateData(boolean remoteInvalidate, int maxSendSize, int maxRecvSize) {

    /** The format identifier that starts RFC 8797 private data. */
    public static final int MAGIC = 0xf6ab0e18;
    /** The only version defined. */
    public static final int VERSION = 1;
    /** Bytes of encoded private data. */
    public static final int ENCODED_LENGTH = 8;
    /** Flags bit 0: Send With Invalidate accepted. */
    public static final int REMOTE_INVALIDATE_FLAG = 0x01;
    /** The unit of the size fields and the smallest size: every receiver accepts 1024-byte Sends. */
    public static final int SIZE_UNIT = 1024;
    /** The largest size the one-byte fields can express. */
    public static final int MAX_SIZE = 256 * SIZE_UNIT;
    /** What a peer assumes of one that sent no (or unrecognised) private data (RFC 8166 §3.3.2). */
    public static final ConnectPrivateData DEFAULT = new ConnectPrivateData(false, SIZE_UNIT, SIZE_UNIT);

    private static final int VERSION_OFFSET = 4;
    private static final int FLAGS_OFFSET = 5;
    private static final int SEND_SIZE_OFFSET = 6;
    private static final int RECV_SIZE_OFFSET = 7;

    /**
     * Checks both sizes are expressible.
     *
     * @param remoteInvalidate Send With Invalidate accepted
     * @param maxSendSize      multiple of 1024 from 1024 to 262144
     * @param maxRecvSize      multiple of 1024 from 1024 to 262144
     */
    public ConnectPrivateData {
        checkSize("send", maxSendSize);
        checkSize("receive", maxRecvSize);
    }

    private static void checkSize(String which, int size) {
        if (size < SIZE_UNIT || size > MAX_SIZE || size % SIZE_UNIT != 0) {
            throw new IllegalArgumentException(which + " size " + size
                    + " is not a multiple of 1024 from 1024 to 262144");
        }
    }

    /**
     * Writes the eight bytes at {@code dst[offset]}; the buffer's position and byte order are unchanged.
     *
     * @param dst    the buffer
     * @param offset index of the first byte
     * @return {@link #ENCODED_LENGTH}
     */
    public int encode(ByteBuffer dst, int offset) {
        Objects.checkFromIndexSize(offset, ENCODED_LENGTH, dst.limit());
        XdrWords.putInt(dst, offset, MAGIC);
        dst.put(offset + VERSION_OFFSET, (byte) VERSION);
        dst.put(offset + FLAGS_OFFSET, (byte) (remoteInvalidate ? REMOTE_INVALIDATE_FLAG : 0));
        dst.put(offset + SEND_SIZE_OFFSET, (byte) (maxSendSize / SIZE_UNIT - 1));
        dst.put(offset + RECV_SIZE_OFFSET, (byte) (maxRecvSize / SIZE_UNIT - 1));
        return ENCODED_LENGTH;
    }

    /** @return the eight encoded bytes */
    public byte[] toBytes() {
        byte[] bytes = new byte[ENCODED_LENGTH];
        encode(ByteBuffer.wrap(bytes), 0);
        return bytes;
    }

    /**
     * Reads private data a peer sent. Private data of another format or version is not an error: the
     * peer simply did not use RFC 8797 (RFC 8797 §5), and {@link #DEFAULT} applies.
     *
     * @param src    the received private data
     * @param offset index of its first byte
     * @param length bytes of private data received (RDMA-CM pads it with zeros)
     * @return the decoded data, or empty when it is too short, has another magic or another version
     */
    public static Optional<ConnectPrivateData> decode(ByteBuffer src, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, src.limit());
        if (length < ENCODED_LENGTH || XdrWords.getInt(src, offset) != MAGIC
                || Byte.toUnsignedInt(src.get(offset + VERSION_OFFSET)) != VERSION) {
            return Optional.empty();
        }
        int flags = Byte.toUnsignedInt(src.get(offset + FLAGS_OFFSET));
        return Optional.of(new ConnectPrivateData((flags & REMOTE_INVALIDATE_FLAG) != 0,
                (Byte.toUnsignedInt(src.get(offset + SEND_SIZE_OFFSET)) + 1) * SIZE_UNIT,
                (Byte.toUnsignedInt(src.get(offset + RECV_SIZE_OFFSET)) + 1) * SIZE_UNIT));
    }
}
