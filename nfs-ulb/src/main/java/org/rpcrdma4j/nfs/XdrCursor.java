package org.rpcrdma4j.nfs;

import org.rpcrdma4j.transport.DdpPolicy;
import org.rpcrdma4j.transport.MessageBytes;
import org.rpcrdma4j.xdr.RoundUp;
import org.rpcrdma4j.xdr.XdrItem;

/**
 * Walks an XDR stream (RFC 4506) to find where items sit, reading no byte past the end it is given.
 * Every length is checked against its XDR bound and against the bytes left before it is used.
 */
public final class XdrCursor {

    private final MessageBytes bytes;
    private final int end;
    private int position;

    /**
     * @param bytes  the stream
     * @param offset where to start reading
     * @param end    index after the last byte that may be read
     */
    public XdrCursor(byte[] bytes, int offset, int end) {
        this(MessageBytes.of(bytes), offset, end);
    }

    /**
     * Reads the body of an RPC message, its arguments or results, to the message's end.
     *
     * @param message the message
     */
    public XdrCursor(DdpPolicy.RpcMessage message) {
        this(message.bytes(), message.bodyOffset(), message.bytes().length());
    }

    private XdrCursor(MessageBytes bytes, int offset, int end) {
        if (offset < 0 || end > bytes.length() || offset > end) {
            throw new IllegalArgumentException("range " + offset + ".." + end + " outside " + bytes.length()
                    + " bytes");
        }
        this.bytes = bytes;
        this.position = offset;
        this.end = end;
    }

    /** @return the index of the next byte to read */
    public int position() {
        return position;
    }

    /**
     * @return the next 32-bit word
     * @throws IllegalArgumentException if the stream ends first
     */
    public int int32() {
        require(4, "a 32-bit word");
        int value = bytes.getInt(position);
        position += 4;
        return value;
    }

    /** @return the next 32-bit word as an unsigned value */
    public long uint32() {
        return Integer.toUnsignedLong(int32());
    }

    /** @return the next 64-bit hyper */
    public long hyper() {
        return (long) int32() << 32 | uint32();
    }

    /**
     * @return the next boolean (RFC 4506 §4.4)
     * @throws IllegalArgumentException if the word is neither 0 nor 1
     */
    public boolean bool() {
        int value = int32();
        if (value != 0 && value != 1) {
            throw new IllegalArgumentException("boolean " + value + " at " + (position - 4));
        }
        return value == 1;
    }

    /**
     * Skips fixed-length data.
     *
     * @param length bytes to skip, a multiple of four
     */
    public void skip(int length) {
        require(length, length + " bytes");
        position += length;
    }

    /**
     * Reads a variable-length opaque or string (RFC 4506 §4.10, §4.11) and steps over it and its pad.
     *
     * @param maxLength the XDR bound of the item
     * @return where its data sits and how long it is, without pad
     * @throws IllegalArgumentException if the length exceeds the bound or the stream
     */
    public XdrItem opaque(long maxLength) {
        long length = uint32();
        if (length > maxLength) {
            throw new IllegalArgumentException("opaque of " + length + " bytes exceeds its bound " + maxLength);
        }
        int start = position;
        require(RoundUp.roundUp(length), "an opaque of " + length + " bytes");
        position += (int) RoundUp.roundUp(length);
        return new XdrItem(start, length);
    }

    /**
     * Reads the length of a variable-length opaque or string and tells where its data starts, without
     * requiring the data to be there: the reply a requester splices Write-chunk data into lacks it.
     * The cursor is left at the start of the data.
     *
     * @param maxLength the XDR bound of the item
     * @return where its data sits, or will, and how long it is
     * @throws IllegalArgumentException if the length word is missing or exceeds the bound
     */
    public XdrItem opaqueHeader(long maxLength) {
        long length = uint32();
        if (length > maxLength) {
            throw new IllegalArgumentException("opaque of " + length + " bytes exceeds its bound " + maxLength);
        }
        return new XdrItem(position, length);
    }

    private void require(long count, String what) {
        if (count > end - position) {
            throw new IllegalArgumentException("XDR stream ends at " + end + " inside " + what + " at " + position);
        }
    }
}
