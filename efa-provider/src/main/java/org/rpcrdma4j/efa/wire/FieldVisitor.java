package org.rpcrdma4j.efa.wire;

import java.nio.ByteBuffer;

/**
 * Receives the fields of a decoded packet from {@link PacketFields#visit}, named as the libfabric
 * provider names them on the wire ({@code msg_id}, {@code rma_iov}, {@code opt_cq_data}, ...).
 *
 * <p>Objects and arrays nest: {@code opt_raw_addr} is an object, {@code rma_iov} and {@code read_iov} are
 * arrays of objects, {@code extra_info} is an array of integers. Elements of an array have no name.
 */
public interface FieldVisitor {

    /**
     * An unsigned integer field.
     *
     * @param name the wire name, or {@code null} for an array element
     * @param value the value; a u64 may look negative, read it with {@link Long#toUnsignedString(long)}
     */
    void onInteger(String name, long value);

    /**
     * A field of raw bytes, such as a GID.
     *
     * @param name the wire name
     * @param buffer the packet buffer
     * @param offset the index of the first byte
     * @param length the number of bytes
     */
    void onBytes(String name, ByteBuffer buffer, int offset, int length);

    /**
     * The start of an object; its fields follow until {@link #onObjectEnd()}.
     *
     * @param name the wire name, or {@code null} for an array element
     */
    void onObjectStart(String name);

    /** The end of the innermost open object. */
    void onObjectEnd();

    /**
     * The start of an array; its elements follow until {@link #onArrayEnd()}.
     *
     * @param name the wire name
     */
    void onArrayStart(String name);

    /** The end of the innermost open array. */
    void onArrayEnd();
}
