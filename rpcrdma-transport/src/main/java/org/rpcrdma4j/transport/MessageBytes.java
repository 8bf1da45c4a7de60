package org.rpcrdma4j.transport;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The bytes of an encoded RPC message, read in place: one array, or the buffers it was encoded into
 * (oncrpc4j's shallow encoding of a READ result makes one of them) or received in (the memory behind
 * a Write chunk), in stream order. It holds views of those buffers, never copies, so bulk data is not
 * moved to be marshalled; the bytes behind it must not change while it is in use. Immutable.
 */
public final class MessageBytes {

    /** No bytes. */
    public static final MessageBytes EMPTY = new MessageBytes(new ByteBuffer[0], new int[] {0});

    /**
     * The view when the message is one buffer (the common case, a message received or encoded in one),
     * which then needs neither array below; else null.
     */
    private final ByteBuffer only;
    /** Views, each at position 0 with its bytes up to its limit; none empty. Null with {@link #only}. */
    private final ByteBuffer[] parts;
    /** Where each part starts in the message; the last entry is the length. Null with {@link #only}. */
    private final int[] starts;

    private MessageBytes(ByteBuffer[] parts, int[] starts) {
        this.only = null;
        this.parts = parts;
        this.starts = starts;
    }

    private MessageBytes(ByteBuffer only) {
        this.only = only;
        this.parts = null;
        this.starts = null;
    }

    /**
     * @param bytes a whole message
     * @return a view of the array
     */
    public static MessageBytes of(byte[] bytes) {
        // The common case, once per message: one array, no lists to build.
        return bytes.length == 0 ? EMPTY : new MessageBytes(ByteBuffer.wrap(bytes));
    }

    /**
     * @param buffers the message's bytes in order, each between its position and limit; their
     *                positions and limits are not changed
     * @return a view of them
     * @throws IllegalArgumentException if they hold more than {@code Integer.MAX_VALUE} bytes
     */
    public static MessageBytes of(List<ByteBuffer> buffers) {
        if (buffers.size() == 1) {
            ByteBuffer only = buffers.get(0);
            return only.hasRemaining() ? new MessageBytes(only.slice()) : EMPTY;
        }
        List<ByteBuffer> parts = new ArrayList<>(buffers.size());
        for (ByteBuffer buffer : buffers) {
            if (buffer.hasRemaining()) {
                parts.add(buffer.slice());
            }
        }
        return of(parts.toArray(new ByteBuffer[0]));
    }

    private static MessageBytes of(ByteBuffer[] views) {
        ByteBuffer[] parts = coalesce(views);
        if (parts.length < 2) {
            return parts.length == 0 ? EMPTY : new MessageBytes(parts[0]);
        }
        int[] starts = new int[parts.length + 1];
        long at = 0;
        for (int i = 0; i < parts.length; i++) {
            starts[i] = (int) at;
            at += parts[i].remaining();
            if (at > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("a message of more than " + Integer.MAX_VALUE + " bytes");
            }
        }
        starts[parts.length] = (int) at;
        return new MessageBytes(parts, starts);
    }

    /**
     * Joins neighbours in one array, such as the segments of a Write chunk, so that a range over
     * them stays one view (oncrpc4j decodes an opaque in place only when it lies in one buffer).
     */
    private static ByteBuffer[] coalesce(ByteBuffer[] views) {
        if (views.length < 2) {
            return views;
        }
        List<ByteBuffer> parts = new ArrayList<>(views.length);
        for (ByteBuffer view : views) {
            ByteBuffer last = parts.isEmpty() ? null : parts.get(parts.size() - 1);
            if (last != null && last.hasArray() && view.hasArray() && last.array() == view.array()
                    && last.arrayOffset() + last.limit() == view.arrayOffset()) {
                parts.set(parts.size() - 1, ByteBuffer.wrap(last.array(), last.arrayOffset(),
                        last.limit() + view.limit()).slice());
            } else {
                parts.add(view);
            }
        }
        return parts.toArray(new ByteBuffer[0]);
    }

    /**
     * @param messages messages or ranges of them
     * @return them one after the other, still views
     */
    public static MessageBytes concat(MessageBytes... messages) {
        List<ByteBuffer> all = new ArrayList<>();
        for (MessageBytes message : messages) {
            for (int part = 0; part < message.bufferCount(); part++) {
                all.add(message.part(part));
            }
        }
        return of(all.toArray(new ByteBuffer[0]));
    }

    /** @return the number of bytes */
    public int length() {
        return only != null ? only.limit() : starts[parts.length];
    }

    /** @return how many buffers hold the bytes */
    public int bufferCount() {
        return only != null ? 1 : parts.length;
    }

    /**
     * @param index which buffer, in order
     * @return a new view of it, at position 0
     * @throws IndexOutOfBoundsException if there is no such buffer
     */
    public ByteBuffer buffer(int index) {
        return part(index).duplicate();
    }

    /**
     * @param index a byte's offset
     * @return the byte
     * @throws IndexOutOfBoundsException if it is outside the message
     */
    public byte get(int index) {
        checkRange(index, 1);
        int part = partOf(index);
        return part(part).get(index - start(part));
    }

    /**
     * @param index the offset of a big-endian 32-bit word, which may span buffers
     * @return the word
     * @throws IndexOutOfBoundsException if it runs outside the message
     */
    public int getInt(int index) {
        checkRange(index, 4);
        int part = partOf(index);
        int at = index - start(part);
        if (at + 4 <= part(part).limit()) {
            return part(part).getInt(at);
        }
        return (get(index) & 0xFF) << 24 | (get(index + 1) & 0xFF) << 16 | (get(index + 2) & 0xFF) << 8
                | get(index + 3) & 0xFF;
    }

    /**
     * Copies bytes out.
     *
     * @param offset    where they start in the message
     * @param target    where they go
     * @param targetAt  where in {@code target}
     * @param length    how many
     * @throws IndexOutOfBoundsException if the range is outside the message or the target
     */
    public void get(int offset, byte[] target, int targetAt, int length) {
        checkRange(offset, length);
        for (int part = partOf(offset), done = 0; done < length; part++) {
            int from = offset + done - start(part);
            int bytes = Math.min(length - done, part(part).limit() - from);
            part(part).get(from, target, targetAt + done, bytes);
            done += bytes;
        }
    }

    /**
     * Copies bytes out into a buffer, at an index, leaving its position as it is.
     *
     * @param offset    where they start in the message
     * @param target    where they go
     * @param targetAt  index in {@code target}
     * @param length    how many
     * @throws IndexOutOfBoundsException if the range is outside the message or the target
     */
    public void get(int offset, ByteBuffer target, int targetAt, int length) {
        checkRange(offset, length);
        for (int part = partOf(offset), done = 0; done < length; part++) {
            int from = offset + done - start(part);
            int bytes = Math.min(length - done, part(part).limit() - from);
            target.put(targetAt + done, part(part), from, bytes);
            done += bytes;
        }
    }

    /** @return a copy of the whole message */
    public byte[] toArray() {
        byte[] copy = new byte[length()];
        get(0, copy, 0, copy.length);
        return copy;
    }

    /**
     * @param offset where the range starts
     * @param length its bytes
     * @return the range, views of the same buffers
     * @throws IndexOutOfBoundsException if it is outside the message
     */
    public MessageBytes range(int offset, int length) {
        checkRange(offset, length);
        if (length == 0) {
            return EMPTY;
        }
        int first = partOf(offset);
        int last = partOf(offset + length - 1);
        ByteBuffer[] views = new ByteBuffer[last - first + 1];
        for (int part = first; part <= last; part++) {
            int from = Math.max(offset, start(part)) - start(part);
            int to = Math.min(offset + length, start(part + 1)) - start(part);
            views[part - first] = part(part).slice(from, to - from);
        }
        return of(views);
    }

    /**
     * @param offset where the range starts
     * @param length its bytes
     * @return whether the range lies in one buffer, so that {@link #contiguous} makes no copy of it
     * @throws IndexOutOfBoundsException if it is outside the message
     */
    public boolean inOneBuffer(int offset, int length) {
        checkRange(offset, length);
        return length == 0 || offset + length <= start(partOf(offset) + 1);
    }

    /**
     * @param offset where the range starts
     * @param length its bytes
     * @return the range as one buffer at position 0: a view when it lies in one buffer, else a copy
     * @throws IndexOutOfBoundsException if it is outside the message
     */
    public ByteBuffer contiguous(int offset, int length) {
        if (length > 0 && inOneBuffer(offset, length)) {
            int part = partOf(offset);
            return part(part).slice(offset - start(part), length);
        }
        byte[] copy = new byte[length];
        get(offset, copy, 0, length);
        return ByteBuffer.wrap(copy);
    }

    private void checkRange(int offset, int length) {
        if (offset < 0 || length < 0 || offset > length() - length) {
            throw new IndexOutOfBoundsException("bytes " + offset + ".." + ((long) offset + length)
                    + " outside a message of " + length() + " bytes");
        }
    }

    /** @return the part holding byte {@code index}, which is inside the message */
    private int partOf(int index) {
        if (only != null) {
            return 0;
        }
        int found = Arrays.binarySearch(starts, 0, parts.length, index);
        return found >= 0 ? found : -found - 2;
    }

    private ByteBuffer part(int index) {
        if (only != null) {
            Objects.checkIndex(index, 1);
            return only;
        }
        return parts[index];
    }

    /** @return where part {@code index} starts; the length for the index after the last */
    private int start(int index) {
        return only == null ? starts[index] : index == 0 ? 0 : only.limit();
    }

    @Override
    public String toString() {
        return "MessageBytes[" + length() + " bytes in " + bufferCount() + " buffers]";
    }
}
