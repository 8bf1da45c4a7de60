/**
 * The wire format of EFA RDM protocol v4, byte for byte as libfabric's EFA provider sends it
 * (libfabric main @ af8ddbe, identical to v2.6.0 apart from PEER_ERROR, extra feature 9 and the HMEM
 * handshake header).
 *
 * <p>{@link org.rpcrdma4j.efa.wire.PacketType}, {@link org.rpcrdma4j.efa.wire.ExtraFeature} and
 * {@link org.rpcrdma4j.efa.wire.PacketFlags} hold every type ID, feature bit and flag. One
 * {@code *Flyweight} per header family reads and writes fields in place over a {@link java.nio.ByteBuffer};
 * all integers are little endian whatever the buffer's byte order. Received bytes go through
 * {@link org.rpcrdma4j.efa.wire.PacketDecoder} first, which checks every length and count against the
 * bytes present and against {@link org.rpcrdma4j.efa.wire.WireLimits}, and either returns a
 * {@link org.rpcrdma4j.efa.wire.DecodedPacket} or throws a
 * {@link org.rpcrdma4j.efa.wire.PacketDecodeException} naming the broken rule.
 *
 * <p>Where the protocol document ({@code efa_rdm_protocol_v4.md}) and the provider disagree, this
 * package follows the provider; the comments cite the numbered entries of the golden data's
 * DISCREPANCIES.md (for example A1, the swapped READRSP ids).
 *
 * <p>Buffer ownership: the caller owns every buffer. A flyweight uses the buffer it was last wrapped
 * around until it is wrapped again; the decoder and {@link org.rpcrdma4j.efa.wire.PacketFields} keep
 * nothing after they return. None of them changes a buffer's position, limit or byte order.
 */
package org.rpcrdma4j.efa.wire;
