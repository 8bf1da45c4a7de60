package org.rpcrdma4j.efa.wire;

/**
 * Where the parts of a packet that {@link PacketDecoder} has validated lie in its buffer.
 *
 * <p>A packet is laid out as: the mandatory header (for RTW, RTR and RTA types including its
 * {@code rma_iov} entries; for a HANDSHAKE including {@code extra_info}), the optional headers (REQ
 * optional headers, the CTSDATA connid trailer, the HANDSHAKE optional headers), the {@code read_iov}
 * entries of long-read and runting-read REQs, and the payload. Every part is known to fit in the bytes
 * received, so the flyweights may be wrapped at these offsets without further checks.
 *
 * @param type the packet type
 * @param flags the base header's flags
 * @param offset the index of the packet's first byte in the buffer
 * @param mandatoryHeaderLength the length of the mandatory header, as described above
 * @param headerLength the length of the mandatory and optional headers: the provider's header size
 * @param readIovCount the number of {@code read_iov} entries after the headers; 0 for other types
 * @param payloadLength the number of bytes after the headers and the {@code read_iov} entries
 */
public record DecodedPacket(PacketType type, int flags, int offset, int mandatoryHeaderLength, int headerLength,
                            int readIovCount, int payloadLength) {

    /**
     * Returns the index of the first optional header.
     *
     * @return {@code offset + mandatoryHeaderLength}
     */
    public int optionalHeadersOffset() {
        return offset + mandatoryHeaderLength;
    }

    /**
     * Returns the index of a {@code read_iov} entry, to wrap with {@link RmaIovFlyweight}.
     *
     * @param index the entry, below {@link #readIovCount()}
     * @return the index of the entry in the buffer
     */
    public int readIovOffset(int index) {
        return offset + headerLength + index * RmaIovFlyweight.LENGTH;
    }

    /**
     * Returns the index of the first payload byte.
     *
     * @return the index right after the {@code read_iov} entries
     */
    public int payloadOffset() {
        return readIovOffset(readIovCount);
    }

    /**
     * Tells whether a flag is set in the base header.
     *
     * @param flag one of the {@link PacketFlags} constants
     * @return true if every bit of {@code flag} is set
     */
    public boolean hasFlag(int flag) {
        return (flags & flag) == flag;
    }
}
